// Attack: a handler that writes without end. Output is capped per response: 503 before anything is committed, else the connection is cut.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const CAP = 1024 * 1024;
const s = await sandboxServer(
  {
    models: { oneshot: PEOPLE, drip: PEOPLE, rendered: PEOPLE, underCap: PEOPLE, other: PEOPLE },
    resources: {
      'oneshot.ts': "export function onList() {\n  echo('x'.repeat(2 * 1024 * 1024));\n}\n",
      'drip.ts': [
        'export function onList() {',
        "  const line = 'y'.repeat(1000) + '\\n';",
        '  for (;;) {',
        '    try { echo(line); } catch { /* ignore and keep going */ }',
        '  }',
        '}',
      ].join('\n'),
      'rendered.ts': "export function onList() {\n  zput('/request/json/output', new Array(300_000).fill('zzzz'));\n  render();\n}\n",
      'underCap.ts': "export function onList() {\n  for (let i = 0; i < 1000; i++) echo('z'.repeat(1000));\n}\n",
      'other.ts': "export function onList() { echo('other'); }\n",
    },
  },
  { limits: { maxOutputBytes: CAP, cpuLimitMs: 2000 } },
);
t.teardown(() => s.close());

// A handler's one-way echoes are written without waiting for each other: each waiting write added
// its own listeners to the response, past Node's ten, and the server's log had a
// MaxListenersExceededWarning for every slow client.
const warnings: string[] = [];
const onWarning = (w: Error) => void (w.name === 'MaxListenersExceededWarning' && warnings.push(w.message));
process.on('warning', onWarning);
t.teardown(() => void process.off('warning', onWarning));

t.test('one write over the cap, nothing committed yet: 503 handler-output-limit', async (t) => {
  const res = await fetch(s.at('/resources/oneshot'));
  t.equal(res.status, 503);
  t.match(await body(res), { code: 'handler-output-limit', status: 503 });
});

t.test('a rendered view over the cap: 503', async (t) => {
  const res = await fetch(s.at('/resources/rendered'));
  t.equal(res.status, 503);
  t.match(await body(res), { code: 'handler-output-limit' });
});

t.test('many writes that pass the cap after the response was committed: the connection is cut', async (t) => {
  let received = 0;
  await t.rejects(
    fetch(s.at('/resources/drip')).then(async (res) => {
      t.equal(res.status, 200);
      for await (const chunk of res.body!) received += (chunk as Uint8Array).length;
    }),
  );
  t.ok(received <= CAP + 64 * 1024, `the client got at most about the cap (${received} bytes)`);
});

t.test('output under the cap is untouched, and the server keeps serving', async (t) => {
  const res = await fetch(s.at('/resources/underCap'));
  t.equal(res.status, 200);
  t.equal((await res.text()).length, 1000 * 1000);
  t.equal(await (await fetch(s.at('/resources/other'))).text(), 'other');
});

// Last, after every write above (the drip writes thousands of one-way echoes to a client that
// reads slower than the handler writes).
t.test('no response gathered a listener per waiting write', async (t) => {
  await new Promise((resolve) => setImmediate(resolve));
  t.same(warnings, []);
});
