// --workers: a worker that dies while serving is replaced. One that a request (or a tenant's
// handler, through a catastrophic isolate error) kills as soon as it serves made the primary fork
// another at once, every time: as fast as workers start, each start about half a second of CPU.
// The first quick death (within 10 s of listening) is still replaced at once; each next one in a
// row waits twice as long, from 250 ms up to 10 s; a worker that served longer starts over.

import t from 'tap';
import { QUICK_DEATH_MS, RestartBackoff } from '../../src/cluster.ts';

t.test('quick deaths in a row wait longer each time, up to 10 s; a long-lived worker starts over', async (t) => {
  const backoff = new RestartBackoff();
  const delays = Array.from({ length: 9 }, () => backoff.next(500).delayMs);
  t.same(delays, [0, 250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  t.same(backoff.next(QUICK_DEATH_MS), { delayMs: 0, quickDeaths: 0 }, 'one that served 10 s is no quick death: at once');
  t.same(backoff.next(100), { delayMs: 0, quickDeaths: 1 }, 'and the count starts over');
  t.same(backoff.next(100), { delayMs: 250, quickDeaths: 2 });
});

t.test('one crash of a worker that served long is replaced at once', async (t) => {
  const backoff = new RestartBackoff();
  for (let i = 0; i < 5; i++) t.equal(backoff.next(60_000).delayMs, 0);
});
