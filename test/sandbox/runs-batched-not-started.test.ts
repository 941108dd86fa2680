// A run submitted to an isolate waits for the end of the turn before it is handed to the isolate's
// thread (isolate-pool.ts `#handOver`, when its response is batched). Until then it has not
// started: if the isolate goes away meanwhile (another request broke a limit, the memory guard
// shed it), the request never ran, and dispatch.ts gives it to another isolate instead of failing
// it. A run handed over at once (unbatched) has started when it is first in line.

import t from 'tap';
import { DEFAULT_LIMITS } from '../../src/exchange/limits.ts';
import type { Call } from '../../src/sandbox/guest.ts';
import { Slot } from '../../src/sandbox/isolate-pool.ts';

let token = 1;
/** A request's call as the pool sees it: only whether its response is batched matters here. */
const call = (batched: boolean) => ({ token: token++, ex: { res: { batched }, usage: { handlerCpuMs: 0 } }, started: false, closed: false, hostMs: 0 }) as unknown as Call;

async function disposedRightAfter(batched: boolean): Promise<{ outcomes: string[]; started: boolean[] }> {
  const slot = await Slot.create('t', DEFAULT_LIMITS, () => {});
  const calls = [call(batched), call(batched)];
  // No handler is installed: a run that reached the thread would fail there; these must not get that far.
  const runs = calls.map((c) => slot.run(1_000_000, '{}', c).then(() => 'ran', () => 'failed'));
  slot.dispose('closed');
  return { outcomes: await Promise.all(runs), started: calls.map((c) => c.started) };
}

t.test('batched: an isolate disposed in the turn the runs were submitted: neither started', async (t) => {
  const { outcomes, started } = await disposedRightAfter(true);
  t.same(outcomes, ['failed', 'failed']);
  t.same(started, [false, false], 'never handed to the thread: retried elsewhere, not failed');
});

t.test('unbatched: the first run was handed over at once and had started', async (t) => {
  const { outcomes, started } = await disposedRightAfter(false);
  t.same(outcomes, ['failed', 'failed']);
  t.same(started, [true, false]);
});
