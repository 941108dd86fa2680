// A request queued behind one whose isolate V8 disposes for its memory limit never ran,
// so it is retried in another isolate (NotStarted), not failed with the other request's fault.
// isolated-vm disposes the isolate itself on a memory breach: the runs' rejections come back in
// order, and the one of the request that broke the limit must not mark the next in line as started.

import t from 'tap';
import { body, eventually, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { bomb: PEOPLE, other: PEOPLE },
    resources: {
      // Says it runs, stays busy long enough for the next request to queue behind it, then fills the heap.
      'bomb.ts': [
        'export function onList() {',
        "  console.log('bomb running');",
        '  const end = Date.now() + 1500; while (Date.now() < end) {}',
        '  const hoard: number[][] = [];',
        '  for (;;) hoard.push(new Array(100_000).fill(Math.random()));',
        '}',
      ].join('\n'),
      'other.ts': "export function onList() { echo('other'); }\n",
    },
  },
  // One isolate, so the second request queues on the first's; memory is the limit that trips.
  { limits: { maxIsolates: 1, memoryLimitMiB: 16, cpuLimitMs: 5000, wallLimitMs: 10_000 } },
);
t.teardown(() => s.close());

t.test('a request queued behind a memory breach is retried, not failed', async (t) => {
  // Warm the isolate and both handlers, so that both requests only run.
  t.equal(await (await fetch(s.at('/resources/other'))).text(), 'other');
  const bomb = fetch(s.at('/resources/bomb'));
  t.ok(await eventually(() => s.log.some((l) => l.includes('bomb running'))), 'the bomb runs');
  const other = fetch(s.at('/resources/other'));
  const b = await bomb;
  t.equal(b.status, 503);
  t.match(await body(b), { code: 'handler-memory-limit' });
  const o = await other;
  const text = await o.text();
  t.equal(o.status, 200, `the queued request never ran: retried elsewhere (got ${o.status} ${text})`);
  t.equal(text, 'other');
});
