// Attack: a tenant whose every request spins to its CPU limit. With an isolate each, four such
// requests kept four threads busy, on a machine of two cores, and every isolate they broke was
// rebuilt on the event loop: the other tenants' p99 went 4.7–9.7 times up (bench/noisy-neighbour.ts).
// After an app breaks a CPU, time or memory limit it may have one isolate only, for a while
// (src/sandbox/isolate-pool.ts, PENALTY_MS), so its spinning keeps one thread busy at most.

import t from 'tap';
import { busySlots } from '../../src/sandbox/isolate-pool.ts';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { spin: PEOPLE, slow: PEOPLE },
    resources: {
      'spin.ts': 'export function onList() { for (;;) {} }\n',
      // Works for 10 ms and answers: four at once make the pool grow. Far below the CPU limit: four
      // of them queued on one isolate may be charged to the first (the host charges a run until it
      // sees it come back, and the thread runs the next meanwhile; cpu-accounting-queued).
      'slow.ts': "export function onList() { const end = Date.now() + 10; while (Date.now() < end); echo('done'); }\n",
    },
  },
  { limits: { cpuLimitMs: 100, maxIsolates: 4 } },
);
t.teardown(() => s.close());
const app = (await s.server.apps.resolve('localhost'))!;

/**
 * Runs `n` requests to `path` at once; the most isolates the app had meanwhile, the most threads
 * it kept busy (disposed isolates whose thread still runs included), and the statuses.
 */
async function concurrently(path: string, n: number): Promise<{ most: number; busiest: number; statuses: number[] }> {
  let most = 0;
  let busiest = 0;
  let done = false;
  const all = Promise.all(Array.from({ length: n }, () => fetch(s.at(path)).then(async (r) => (await r.arrayBuffer(), r.status)))).finally(() => (done = true));
  while (!done) {
    most = Math.max(most, app.runtime.isolates());
    busiest = Math.max(busiest, busySlots().filter((slot) => slot.app === 'app').length);
    await new Promise((r) => setImmediate(r));
  }
  return { most, busiest, statuses: await all };
}

t.test('before any breach, concurrent requests get isolates of their own', async (t) => {
  const { most, statuses } = await concurrently('/resources/slow', 4);
  t.same(statuses, [200, 200, 200, 200]);
  t.ok(most >= 2, `the pool grew beyond one isolate (${most})`);
});

t.test('after a CPU breach, spinning requests keep at most one thread busy', async (t) => {
  const first = await fetch(s.at('/resources/spin'));
  t.equal(first.status, 503);
  await first.arrayBuffer();
  const { busiest, statuses } = await concurrently('/resources/spin', 4);
  t.ok(statuses.every((st) => st === 503), `every spinning request is 503 (${statuses})`);
  t.equal(busiest, 1, 'one busy thread at most, a disposed isolate whose thread still runs included');
  // The app still serves, one request after another.
  const { statuses: after } = await concurrently('/resources/slow', 3);
  t.same(after, [200, 200, 200]);
});
