// Attack: many clients ask for a large response written in one piece (render(), a big member as
// Atom) and never read it. (40 MB: more than the kernel's socket buffers on loopback take.) Each such response is cut after the request timeout, like a streamed
// one, so that the bytes it holds are released.

import { connect } from 'node:net';
import t from 'tap';
import { appServer } from '../helpers/server.ts';

const BIG = `export function onList() { zput('/request/json/output', { blob: 'x'.repeat(40 * 1024 * 1024) }); render(); }\n`;

t.test('a response rendered in one write is cut for a client that stops reading', async (t) => {
  const server = await appServer(t, { models: { big: { fields: { x: { type: 'string' } } } }, resources: { 'big.ts': BIG } }, { limits: { requestTimeoutMs: 400, cpuLimitMs: 5000, memoryLimitMiB: 512, maxOutputBytes: 64 * 1024 * 1024 } });
  // The server's side: the connection of the response closes (the response counts as handed to
  // the socket once it is queued there, so its own "finished" says nothing about the client).
  const cut = new Promise<void>((resolve) => {
    server.svc.server.once('request', (req) => req.socket.on('close', () => resolve()));
  });
  const { received } = await new Promise<{ received: number }>((resolve, reject) => {
    let received = 0;
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.write('GET /resources/big HTTP/1.1\r\nHost: localhost\r\n\r\n');
      socket.pause();
    });
    void cut.then(() => socket.resume());
    socket.on('data', (d) => (received += d.length));
    socket.on('close', () => resolve({ received }));
    socket.on('error', () => {});
    // Only ends a failing test: the server gives up after 400 ms of no reading.
    setTimeout(() => reject(new Error('the stalled connection stayed open')), 30_000).unref();
  });
  t.ok(received < 40 * 1024 * 1024, `the response was not delivered whole (${received} bytes arrived)`);
  t.equal((await fetch(server.at('/healthz'))).status, 200, 'and keeps serving');
});
