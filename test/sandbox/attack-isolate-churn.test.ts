// Attack: a tenant whose every request breaks its limit, so that every request of it costs the
// server a new isolate. Creating one blocks the event loop for milliseconds, every tenant's
// requests with it: with a memory-filling handler 8 isolates a second were made, and another
// tenant's p99 went 2–3× up (bench/noisy-neighbour.ts). After two faults in a row the app waits
// for its next isolate, 100 ms doubling up to 1 s (src/sandbox/isolate-pool.ts, REPLACE_WAIT_MS);
// a request that completes ends the streak.

import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { spin: PEOPLE, quick: PEOPLE },
    resources: {
      'spin.ts': 'export function onList() { for (;;) {} }\n',
      'quick.ts': "export function onList() { echo('done'); }\n",
    },
  },
  { limits: { cpuLimitMs: 20, maxIsolates: 4 } },
);
t.teardown(() => s.close());

/** One request; its status and how long it took, in milliseconds. */
async function timed(path: string): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(s.at(path));
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0 };
}

t.test('faults in a row: each new isolate comes later, and a completed request ends the streak', async (t) => {
  const spins = [];
  for (let i = 0; i < 6; i++) spins.push(await timed('/resources/spin'));
  t.ok(spins.every((r) => r.status === 503), `every spinning request is 503 (${spins.map((r) => r.status)})`);
  // The 6th waited for the isolate the 5th fault delayed by 100 × 2^3 ms.
  t.ok(spins[5]!.ms >= 750, `the 6th request waited for its isolate (${spins[5]!.ms.toFixed(0)} ms)`);
  t.ok(spins[3]!.ms >= 180, `the 4th request waited for its isolate (${spins[3]!.ms.toFixed(0)} ms)`);

  // A well-behaved request waits out the last wait too (the isolate it needs comes then), and is served.
  const good = await timed('/resources/quick');
  t.equal(good.status, 200);
  t.ok(good.ms >= 900, `the next isolate came after the longest wait (${good.ms.toFixed(0)} ms)`);

  // It completed: one more fault is the first of a new streak, and the request after it gets an
  // isolate at once (with the streak kept, it would wait 1 s again).
  t.equal((await timed('/resources/spin')).status, 503);
  const after = await timed('/resources/quick');
  t.equal(after.status, 200);
  t.ok(after.ms < 900, `no wait after a streak of one (${after.ms.toFixed(0)} ms)`);
});
