// An upstream a handler fetches can send bytes that are not body: interim (1xx) responses one
// after another, or a chunk extension that never ends. fetchMaxBytes counts only the body, so
// such a response was read and parsed on the server's event loop for the whole fetchTimeoutMs,
// hundreds of MB of it (about 100% of a core; 10 fetches per request, as many requests as the
// tenant has), while the handler's own CPU limit saw nothing. The server reads at most twice
// fetchMaxBytes plus 64 KiB for one response, whatever it is made of, and the fetch rejects.

import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import t from 'tap';
import { body, sandboxServer } from './harness.ts';

/** What each kind of upstream sends, after the request, for as long as the connection is open. */
const FLOODS = {
  'interim responses': { head: '', repeat: 'HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n\r\n'.repeat(500) },
  'a chunk extension': { head: 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1;name=', repeat: 'v'.repeat(64 * 1024) },
};

/** An upstream that floods its one connection, and the bytes it got out before the server hung up. */
async function flood(t: { teardown(fn: () => unknown): void }, kind: keyof typeof FLOODS) {
  const { head, repeat } = FLOODS[kind];
  const piece = Buffer.from(repeat);
  let closed!: (bytes: number) => void;
  const sent = new Promise<number>((resolve) => (closed = resolve));
  const server = createServer((socket: Socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      socket.write(head);
      const pump = () => {
        while (!socket.destroyed && socket.write(piece));
      };
      socket.on('drain', pump);
      pump();
    });
    socket.on('close', () => closed(socket.bytesWritten));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, sent };
}

const CALLER = `export async function onList() {
  try {
    const r = await fetch(zget('/request/params/to'));
    zput('/request/json/output', { status: r.status, length: (await r.text()).length });
  } catch (e) {
    zput('/request/json/output', { error: e.name + ': ' + e.message });
  }
  render();
}
`;

for (const kind of Object.keys(FLOODS) as (keyof typeof FLOODS)[]) {
  t.test(`${kind} without end: the fetch rejects once the server has read its bound, not at its timeout`, async (t) => {
    const up = await flood(t, kind);
    const s = await sandboxServer({
      models: { calls: { fields: { name: { type: 'string' } } } },
      resources: { 'calls.ts': CALLER },
      files: { 'svc.json': JSON.stringify({ fetch: { allow: [up.origin] }, limits: { fetchMaxBytes: 1024, fetchTimeoutMs: 3000 } }) },
    });
    t.teardown(() => s.close());
    const r = await body(await fetch(s.at(`/resources/calls?to=${encodeURIComponent(`${up.origin}/x`)}`)));
    t.match(r.error, /^Error: fetch\(\): http:\/\/127\.0\.0\.1:\d+ sent over 67584 bytes for one response/, 'rejected over the bytes read, not the time');
    const sent = await up.sent;
    t.ok(sent < 32 * 1024 * 1024, `the upstream got ${sent} bytes out before the server closed the connection`);
  });
}

t.test('a body that fits its bound is read whole, in chunks of one byte too', async (t) => {
  const server = createServer((socket: Socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      // 1024 chunks of one byte: 6 bytes of framing for each byte of body.
      socket.end(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n${'1\r\nx\r\n'.repeat(1024)}0\r\n\r\n`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const s = await sandboxServer({
    models: { calls: { fields: { name: { type: 'string' } } } },
    resources: { 'calls.ts': CALLER },
    files: { 'svc.json': JSON.stringify({ fetch: { allow: [origin] }, limits: { fetchMaxBytes: 1024 } }) },
  });
  t.teardown(() => s.close());
  t.same(await body(await fetch(s.at(`/resources/calls?to=${encodeURIComponent(`${origin}/x`)}`))), { status: 200, length: 1024 });
});
