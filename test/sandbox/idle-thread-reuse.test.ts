// An isolate whose requests have all run (the host is still finishing one: sending its output to
// a slow client, writing a delegate's result) has an idle thread: the app's next request runs
// there instead of in a new isolate. Isolates cost milliseconds of the event loop and megabytes
// each; a tenant touched a few times at once made two or three of them (bench/tenants-idle.ts).

import net from 'node:net';
import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { big: PEOPLE, small: PEOPLE },
    resources: {
      // The handler's part ends with delegate(); the host then streams the list (8 MiB: far more
      // than the socket takes from a client that does not read), with the isolate's thread idle.
      'big.ts': 'export function onList() { svc.delegate(); }\n',
      'small.ts': "export function onList() { echo('ok'); }\n",
    },
  },
  { limits: { maxIsolates: 4 } },
);
t.teardown(() => s.close());
const app = (await s.server.apps.resolve('localhost'))!;
const big = app.models.get('big')!;
const name = 'n'.repeat(4000);
await Promise.all(Array.from({ length: 2000 }, () => app.store.insert(big, { name }, new Date().toISOString())));

t.test('a request runs in an isolate whose thread is idle rather than in a new one', async (t) => {
  t.equal((await fetch(s.at('/resources/small'))).status, 200);
  t.equal(app.runtime.isolates(), 1, 'one isolate after one request');

  // A client that sends its request and reads nothing: the host holds the response (and its isolate's slot).
  const url = new URL(s.at('/resources/big'));
  const stalled = net.connect(Number(url.port), url.hostname);
  t.teardown(() => stalled.destroy());
  stalled.pause();
  await new Promise<void>((resolve) => stalled.once('connect', () => resolve()));
  stalled.write(`GET /resources/big HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  // The list starts arriving: the handler has run.
  await new Promise<void>((resolve) => stalled.once('readable', () => resolve()));

  for (let i = 0; i < 3; i++) {
    const res = await fetch(s.at('/resources/small'));
    t.equal(await res.text(), 'ok');
  }
  t.equal(app.runtime.isolates(), 1, 'the next requests ran in the same isolate');
  stalled.destroy();
});
