// A client that stops reading a streamed list: the connection is closed after the request timeout,
// so the list's database statement (and its read snapshot) is not held forever.

import t from 'tap';
import { connect } from 'node:net';
import { notesServer, seedMembers } from '../helpers/server.ts';

const server = await notesServer(t, 'text', { limits: { requestTimeoutMs: 400 } });

t.test('a stalled reader is disconnected and the server keeps serving', async (t) => {
  await seedMembers(server, 'notes', 4000, () => ({ text: 'x'.repeat(2000) }));

  // The server's side of the exchange: the response closes, finished or cut.
  const cut = new Promise<boolean>((resolve) => {
    server.svc.server.once('request', (_req, res) => res.on('close', () => resolve(!res.writableFinished)));
  });
  // The client reads nothing until the server has closed the response, then drains what reached it.
  const { received, complete } = await new Promise<{ received: number; complete: boolean }>((resolve, reject) => {
    let received = 0;
    let text = '';
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.write('GET /resources/notes HTTP/1.1\r\nHost: localhost\r\n\r\n');
      socket.pause();
    });
    void cut.then(() => socket.resume());
    socket.on('data', (d) => {
      received += d.length;
      text = (text + d.toString('latin1')).slice(-16);
    });
    // A complete chunked response ends with the last chunk; a cut one does not.
    socket.on('close', () => resolve({ received, complete: text.endsWith('0\r\n\r\n') }));
    socket.on('error', () => {});
    // Only ends a failing test: the server gives up after 400 ms.
    setTimeout(() => reject(new Error('the stalled connection stayed open')), 30_000).unref();
  });
  t.ok(await cut, 'the server cut the response');
  t.notOk(complete, `the response was cut (${received} bytes of about 8 MB arrived)`);
  const res = await fetch(server.at('/resources/notes?count=1'));
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-total-count'), '4000');
});
