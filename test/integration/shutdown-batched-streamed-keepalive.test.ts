// The stop (shutdown) closes the connections of the requests in flight once they are answered: the
// last to finish is closed by its closeIdleConnections() after the drain. A response committed
// before the stop (a streamed list) still says keep-alive, so that close is all that ends its
// connection. With a few connections open, end() leaves the response's end for the end of the
// turn (response.ts `batched`): when the drain ends, the last response is not finished yet, node:http
// does not count its connection idle, and it was left open, the stop waiting on it until the
// keep-alive timeout or the grace period.

import { connect } from 'node:net';
import t from 'tap';
import { notesServer, seedMembers } from '../helpers/server.ts';
import { idleConnection, responses } from '../helpers/wire.ts';

const server = await notesServer(t, 'text');
// The keep-alive timeout must not be what closes the connection (it is 5 s by default).
server.svc.server.keepAliveTimeout = 120_000;

t.test('a streamed response committed before the stop: its connection closes when it is finished', async (t) => {
  await seedMembers(server, 'notes', 8000, () => ({ text: 'x'.repeat(2000) }));

  // Three connections besides the list's: the server batches from three open connections on.
  const idle = await Promise.all([0, 1, 2].map(() => idleConnection(server.port)));
  t.teardown(() => {
    for (const s of idle) s.destroy();
  });

  let stopping: Promise<string> | undefined;
  const { text: got, closed } = await new Promise<{ text: string; closed: boolean }>((resolve) => {
    let got = '';
    let bound: NodeJS.Timeout | undefined;
    const socket = connect(server.port, '127.0.0.1', () => socket.write('GET /resources/notes HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    socket.setEncoding('latin1');
    socket.on('error', () => {});
    // Nothing is read until the list's head is out (keep-alive) and the stop has come: the list,
    // larger than the socket's buffers, is still streaming then.
    socket.once('readable', () => {
      stopping = server.svc.shutdown(60_000).then(() => 'finished');
      socket.on('data', (d) => {
        got += d;
        if (responses(got)[0]?.complete && bound === undefined) {
          // Only ends a failing test: the server closes the connection as soon as the list is finished.
          bound = setTimeout(() => {
            socket.destroy();
            resolve({ text: got, closed: false });
          }, 20_000);
        }
      });
    });
    socket.on('close', () => {
      clearTimeout(bound);
      resolve({ text: got, closed: true });
    });
  });
  const [res] = responses(got);
  t.equal(res?.status, 200);
  t.ok(res?.complete, 'the list is whole');
  t.ok(closed, 'then its connection is closed by the server');
  let bound: NodeJS.Timeout | undefined;
  t.equal(await Promise.race([stopping!, new Promise((resolve) => (bound = setTimeout(() => resolve('still waiting'), 20_000)))]), 'finished', 'and the stop finishes');
  clearTimeout(bound);
});
