// The bench's load generator reads responses itself (bench/connection.ts): every framing node:http
// sends must be read to its end, or the next response on the connection is misread.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { Connection, requestBytes } from '../../bench/connection.ts';

const server = createServer((req, res) => {
  const url = new URL(req.url!, 'http://x');
  let body = '';
  req.on('data', (c: Buffer) => (body += c));
  req.on('end', async () => {
    switch (url.pathname) {
      case '/length':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 5, 'x-total-count': '42' });
        res.end('hello');
        return;
      case '/chunked': {
        // Written piece by piece, each flushed: chunks arrive in several packets.
        res.writeHead(200, { 'content-type': 'text/plain' });
        for (const piece of ['ab', 'c'.repeat(70_000), 'd']) {
          res.write(piece);
          await new Promise((r) => setImmediate(r));
        }
        res.end();
        return;
      }
      case '/empty':
        res.writeHead(204);
        res.end();
        return;
      case '/echo':
        res.writeHead(201, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
        res.end(body);
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no such thing');
    }
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
t.teardown(() => server.close());
const { port } = server.address() as AddressInfo;

t.test('responses of every framing, one after another on one connection', async (t) => {
  const c = new Connection('127.0.0.1', port);
  t.teardown(() => c.close());
  const get = (path: string) => requestBytes('GET', path, `127.0.0.1:${port}`);
  for (let round = 0; round < 3; round++) {
    t.same(await c.send(get('/length'), 200), { status: 200, bytes: 5, total: 42 });
    t.same(await c.send(get('/chunked'), 200), { status: 200, bytes: 70_003 });
    t.same(await c.send(get('/empty'), 204), { status: 204, bytes: 0 });
    t.same(await c.send(requestBytes('POST', '/echo', 'x', { 'content-type': 'text/plain' }, 'héllo'), 201), { status: 201, bytes: 6 });
    // A status other than the one expected keeps its body, for the report.
    t.same(await c.send(get('/missing'), 200), { status: 404, bytes: 13, body: 'no such thing' });
    t.same(await c.send(get('/chunked'), 500), {
      status: 200,
      bytes: 70_003,
      body: `ab${'c'.repeat(70_000)}d`,
    });
  }
});

t.test('a connection the server closes rejects the request in flight', async (t) => {
  const closing = createServer((req) => req.socket.destroy());
  await new Promise<void>((r) => closing.listen(0, '127.0.0.1', r));
  t.teardown(() => closing.close());
  const c = new Connection('127.0.0.1', (closing.address() as AddressInfo).port);
  await t.rejects(c.send(requestBytes('GET', '/', 'x'), 200));
});
