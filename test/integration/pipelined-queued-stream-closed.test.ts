// Two streamed lists pipelined on one connection; the client reads a little of the first and
// closes. The second, queued behind the first, never got the socket: its first write waited for
// 'drain' or 'close' on a response that emits neither once the connection is gone (the stall
// timer's res.destroy() on a response without a socket emits no 'close' either). Its request never
// ended: it held one of the app's --tenant-concurrency slots for ever, and shutdown, which waits
// for the requests in progress, never finished.

import t from 'tap';
import { connect } from 'node:net';
import { notesServer, seedMembers } from '../helpers/server.ts';

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
  await seedMembers(server, 'notes', 2000, () => ({ text: 'x'.repeat(2000) }));
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
