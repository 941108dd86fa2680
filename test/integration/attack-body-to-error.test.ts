// A large body sent to a URL that fails before the body is read (404): the server answers and
// closes the connection instead of reading and discarding whatever the client keeps sending.

import t from 'tap';
import { connect } from 'node:net';
import { notesServer } from '../helpers/server.ts';

const server = await notesServer(t);

t.test('the connection closes after the 404', async (t) => {
  const { text, closed } = await new Promise<{ text: string; closed: boolean }>((resolve) => {
    let text = '';
    const socket = connect(server.port, '127.0.0.1', () => {
      // Claims 1 GB, sends a little, and keeps the connection open.
      socket.write('POST /resources/nope HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"text":"');
    });
    socket.setEncoding('utf8');
    socket.on('data', (d) => (text += d));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ text, closed: true }));
    // The server closes at once after its answer; this bound only ends a failing test, on any load.
    setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, 20_000).unref();
  });
  t.match(text, /^HTTP\/1\.1 404 /);
  t.match(text, /connection: close/i);
  t.ok(closed, 'the server closed the connection');
});
