// Two streamed lists pipelined on one connection; the client reads a little of the first and
// closes. The second, queued behind the first, never got the socket: its first write waited for
// 'drain' or 'close' on a response that emits neither once the connection is gone (the stall
// timer's res.destroy() on a response without a socket emits no 'close' either). Its request never
// ended: it held one of the app's --tenant-concurrency slots for ever, and shutdown, which waits
// for the requests in progress, never finished.

import t from 'tap';
import { connect } from 'node:net';
import { notesServer } from '../helpers/server.ts';

const server = await notesServer(t, 'text', { limits: { requestTimeoutMs: 500 } });

/** Pipelines two lists, reads 100 KB of the first, closes. */
function readALittleAndClose(): Promise<void> {
  return new Promise<void>((resolve) => {
    const s = connect(server.port, '127.0.0.1', () => s.write('GET /resources/notes HTTP/1.1\r\nHost: localhost\r\n\r\nGET /resources/notes?count=500 HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    let n = 0;
    s.on('data', (d) => {
      n += d.length;
      if (n > 100_000) s.destroy();
    });
    s.on('close', () => resolve());
    s.on('error', () => {});
  });
}

t.test('a client that closes with a streamed list queued leaves no request in progress', async (t) => {
  const a = (await server.apps.resolve('localhost'))!;
  const model = a.models.get('notes')!;
  await a.store.ensure(model);
  const text = 'x'.repeat(2000);
  await Promise.all(Array.from({ length: 2000 }, (_, i) => a.store.insert(model, { text }, new Date(Date.UTC(2024, 0, 1) + i).toISOString())));
  await readALittleAndClose();
  // Shutdown waits for every request in progress: it ends once the closed connection's two have.
  // The bound is for a failure to show as one, not a measure: it holds on a machine busy elsewhere.
  let bound: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    server.svc.shutdown(500).then(() => 'finished'),
    new Promise((resolve) => (bound = setTimeout(() => resolve('still waiting after 20 s'), 20_000))),
  ]);
  clearTimeout(bound);
  t.equal(outcome, 'finished', 'shutdown finishes');
});
