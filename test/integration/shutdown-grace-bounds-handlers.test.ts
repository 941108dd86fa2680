// README "Configuration": "SIGTERM and SIGINT stop accepting connections, let in-flight requests
// finish (at most 10 s), then close the store"; "Without a container": "finishes the requests in
// flight (for at most 10 s), closes the store and exits 0". A handler may keep its request busy
// for 30 s (fetch time counts toward it, README "App settings"): a handler that waits on a slow
// upstream must not hold the process past the 10 s drain, or `docker stop -t 15` and systemd's
// TimeoutStopSec=15 kill it (exit 137) instead of it exiting 0.

import t from 'tap';
import { spawnServer } from '../helpers/process.ts';
import { makeApp } from '../helpers/server.ts';
import { upstream } from '../helpers/upstream.ts';

t.test('SIGTERM: a handler waiting on fetch() does not keep the process past the 10 s drain', async (t) => {
  let fetched: () => void;
  const firstFetch = new Promise<void>((resolve) => (fetched = resolve));
  // Never answers: each fetch() gives up after its 5 s, and the handler tries again.
  const port = await upstream(t, () => fetched());
  const up = `http://127.0.0.1:${port}`;
  const app = makeApp({
    models: { calls: { fields: { name: { type: 'string' } } } },
    resources: {
      'calls.ts': `export async function onList() {
  for (let i = 0; i < 10; i++) {
    try { await fetch('${up}/hang'); } catch {}
  }
  zput('/request/json/output', { done: true });
  render();
}
`,
    },
    files: { 'svc.json': JSON.stringify({ fetch: { allow: [up] } }) },
  });
  t.teardown(() => app.cleanup());
  const server = await spawnServer(['--app', app.dir, '--store', 'sqlite::memory:']);
  t.teardown(() => void server.child.kill('SIGKILL'));

  const answer = fetch(`${server.url}/resources/calls`).then(
    (r) => r.status,
    () => 'cut',
  );
  await firstFetch;
  const signalled = performance.now();
  server.child.kill('SIGTERM');
  // The drain is 10 s; the process then closes the store and exits. 13 s leaves it 3 s for that.
  const bound = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 13_000).unref());
  const code = await Promise.race([server.exited, bound]);
  t.comment(`exited ${((performance.now() - signalled) / 1000).toFixed(1)} s after SIGTERM; the request: ${await Promise.race([answer, Promise.resolve('pending')])}`);
  t.equal(code, 0, 'exits 0 within the drain (and a few seconds to close)');
});
