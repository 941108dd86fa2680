// Unbuffered output (SPEC §8): the first write commits status and headers, later changes are ignored, and the 204 default.

import { request } from 'node:http';
import t from 'tap';
import { GATE_HANDLER, GATE_MODEL, GATE_LIMITS, openGate, WAIT_FOR_GATE } from './gate.ts';
import { body, eventually, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { out: PEOPLE, gate: GATE_MODEL },
    resources: {
      'gate.ts': GATE_HANDLER,
      'out.ts': `
        ${WAIT_FOR_GATE}
        const CASES: Record<string, () => void> = {
          commit() {
            zput('/request/status', 201);
            zput('/request/headers/out/x-first', 'yes');
            echo('one ');
            zput('/request/status', 500);
            zput('/request/headers/out/x-late', 'ignored');
            zdelete('/request/headers/out/x-first');
            echo('two');
            svc.write(3);
          },
          statusOnly() { zput('/request/status', 202); zput('/request/headers/out/x-kept', 'yes'); },
          nothing() {},
          headerOnly() { zput('/request/headers/out/x-kept', 'yes'); },
          stream() { echo('first|'); waitForGate(); echo('last'); },
          afterDelegate() { svc.delegate(); echo('more'); },
          afterRender() { zput('/request/json/output', [1]); render(); echo('more'); },
          delegateAfterEcho() { echo('partial'); svc.delegate(); },
          emptyFirst() { zput('/request/status', 203); echo(''); zput('/request/status', 500); },
        };
        export function onList() {
          const which = String(zget('/request/params/case'));
          zdelete('/request/params/case'); // not a filter for the default handler
          CASES[which]!();
        }`,
    },
  },
  { dev: true, limits: { cpuLimitMs: 2000, ...GATE_LIMITS } },
);
t.teardown(() => s.close());
const at = (c: string) => s.at(`/resources/out?case=${c}`);

t.test('the first write commits status and headers; later changes to them are ignored', async (t) => {
  const res = await fetch(at('commit'));
  t.equal(res.status, 201);
  t.equal(res.headers.get('x-first'), 'yes');
  t.equal(res.headers.get('x-late'), null);
  t.equal(await res.text(), 'one two3');
});

t.test('a status and no output: that status with an empty body', async (t) => {
  const res = await fetch(at('statusOnly'));
  t.equal(res.status, 202);
  t.equal(res.headers.get('x-kept'), 'yes');
  t.equal(await res.text(), '');
});

t.test('neither output, render nor delegate: 204 (with the headers set)', async (t) => {
  const res = await fetch(at('nothing'));
  t.equal(res.status, 204);
  t.equal(await res.text(), '');
  const withHeader = await fetch(at('headerOnly'));
  t.equal(withHeader.status, 204);
  t.equal(withHeader.headers.get('x-kept'), 'yes');
});

t.test('an empty first write commits too', async (t) => {
  const res = await fetch(at('emptyFirst'));
  t.equal(res.status, 203);
  t.equal(await res.text(), '');
});

t.test('output is written when the handler writes it, not when it ends', async (t) => {
  // The handler writes, then waits until the test has received that write; buffered output would
  // never arrive, and the handler would wait until its CPU limit.
  const chunks = await new Promise<string[]>((resolve, reject) => {
    const got: string[] = [];
    request(at('stream'), (res) => {
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        if (got.push(text) === 1) openGate(s.at).catch(reject);
      });
      res.on('end', () => resolve(got));
    })
      .on('error', reject)
      .end();
  });
  t.equal(chunks.join(''), 'first|last');
  t.equal(chunks[0], 'first|', 'the first write arrived on its own, while the handler was still running');
});

t.test('writing after delegate() or render() completed the response: the response stands, the error is logged', async (t) => {
  const delegated = await fetch(at('afterDelegate'));
  t.equal(delegated.status, 200);
  t.same(await body(delegated), []);
  const rendered = await fetch(at('afterRender'));
  t.same(await body(rendered), [1]);
  t.ok(await eventually(() => s.log.filter((l) => /handler threw Error: echo: the response is already complete/.test(l)).length >= 2));
});

t.test('delegate() after output is an error; with output committed the connection is cut', async (t) => {
  // Depending on timing the client sees the head and a cut body, or only the cut.
  await t.rejects(fetch(at('delegateAfterEcho')).then((res) => res.text()), 'the response ends abruptly');
  t.ok(await eventually(() => s.log.some((l) => /delegate before echo\/write/.test(l))));
});
