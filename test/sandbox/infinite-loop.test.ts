// Attack: a handler that never stops. CPU time is limited per request, the isolate is replaced, and the server keeps answering meanwhile.

import { request } from 'node:http';
import t from 'tap';
import { body, eventually, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { spin: PEOPLE, other: PEOPLE, late: PEOPLE, slowclient: PEOPLE },
  resources: {
    'spin.ts': 'export function onList() {\n  for (;;) {}\n}\nexport function onRetrieve() { echo("recovered"); }\n',
    'other.ts': "export function onList() { echo('other'); }\n",
    'late.ts': "export function onList() {\n  echo('started');\n  while (true) {}\n}\n",
    // 4 MiB in 64 KiB pieces to a client that does not read for a while: waiting is not CPU time.
    'slowclient.ts': "export function onList() {\n  const piece = 'x'.repeat(64 * 1024);\n  for (let i = 0; i < 64; i++) echo(piece);\n}\n",
  },
});
t.teardown(() => s.close());

async function timed(url: string): Promise<{ ms: number; status: number; text: string }> {
  const t0 = performance.now();
  const res = await fetch(url);
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text };
}

t.test('an endless loop is stopped by the CPU limit: 503, and the next request is served', async (t) => {
  // A CPU limit of a second, so that requests made during the spin land well inside it on a loaded machine.
  const slow = await sandboxServer(
    { models: { spin: PEOPLE, other: PEOPLE }, resources: { 'spin.ts': "export function onList() {\n  console.log('spinning');\n  for (;;) {}\n}\nexport function onRetrieve() { echo('recovered'); }\n", 'other.ts': "export function onList() { echo('other'); }\n" } },
    { limits: { cpuLimitMs: 1000 } },
  );
  t.teardown(() => slow.close());
  let spinEnded = false;
  const spinning = timed(slow.at('/resources/spin')).finally(() => (spinEnded = true));
  // While it spins, the event loop answers health checks and other collections.
  t.ok(await eventually(() => slow.log.some((l) => l.endsWith('spin list] log: spinning'))), 'the handler is spinning');
  const health = await timed(slow.at('/healthz'));
  t.notOk(spinEnded, '/healthz was answered during the spin');
  const other = await timed(slow.at('/resources/other'));
  t.notOk(spinEnded, 'another collection was answered during the spin');
  const spun = await spinning;
  t.equal(spun.status, 503);
  // handler-cpu-limit, not handler-time-limit: the CPU watchdog stopped it, long before the wall-clock backstop (10 s).
  t.match(JSON.parse(spun.text), { code: 'handler-cpu-limit', status: 503, title: 'Service Unavailable' });
  t.ok(spun.ms >= 1000, `stopped after its CPU time (${spun.ms.toFixed(0)} ms)`);
  t.equal(health.status, 200);
  t.equal(other.text, 'other');
  // Each takes a few milliseconds; a second (the spin's whole CPU limit) holds on a loaded machine
  // and still fails if the event loop waited for the spin, even for part of it.
  t.ok(health.ms < 1000, `/healthz answered in ${health.ms.toFixed(1)} ms during the spin`);
  t.ok(other.ms < 1000, `another collection answered in ${other.ms.toFixed(1)} ms during the spin`);
  t.ok(slow.log.some((l) => /spin list\] isolate replaced \(cpu\)/.test(l)), 'the isolate was replaced');
  t.equal((await timed(slow.at('/resources/spin/1'))).text, 'recovered');
});

t.test('several spinning requests at once: each is stopped, none starves the others', async (t) => {
  const spins = Array.from({ length: 3 }, () => timed(s.at('/resources/spin')));
  const other = await timed(s.at('/resources/other'));
  t.equal(other.text, 'other');
  for (const r of await Promise.all(spins)) t.equal(r.status, 503);
});

t.test('a loop after output was committed: the connection is closed', async (t) => {
  await t.rejects(fetch(s.at('/resources/late')).then((r) => r.text()));
});

t.test('time spent waiting for a slow client is not CPU time', async (t) => {
  const { status, length } = await new Promise<{ status: number; length: number }>((resolve, reject) => {
    request(s.at('/resources/slowclient'), (res) => {
      res.pause();
      let length = 0;
      res.on('data', (chunk: Buffer) => (length += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode!, length }));
      setTimeout(() => res.resume(), 300);
    })
      .on('error', reject)
      .end();
  });
  t.equal(status, 200);
  t.equal(length, 4 * 1024 * 1024, 'the whole body, although the handler waited > 100 ms');
  t.notOk(s.log.some((l) => /slowclient list\] isolate replaced/.test(l)));
});

t.test('a problem body says nothing about the host', async (t) => {
  const res = await fetch(s.at('/resources/spin'));
  const problem = await body(res);
  t.notMatch(JSON.stringify(problem), /\/tmp|node_modules|isolated-vm|at /);
});
