// A client that goes away in the middle of its body is not an internal error: nothing is logged as one.

import t from 'tap';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { makeApp, startServer } from '../helpers/server.ts';

const app = makeApp({ models: { notes: { fields: { text: { type: 'text' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
t.teardown(() => app.cleanup());
// A database file, so that a second server can show what the first one stored.
const store = `sqlite:${join(app.dir, 'notes.sqlite')}`;
const logged: string[] = [];
const original = console.error;
console.error = (...args: unknown[]) => void logged.push(args.map(String).join(' '));
t.teardown(() => {
  console.error = original;
});

const UPLOADS = 5;

t.test('aborted uploads leave no internal-error line and store nothing', async (t) => {
  const server = await startServer({ appDir: app.dir, store });
  // Each client sends its headers and part of its body, and goes away once the server is reading them all.
  let started = 0;
  const reading = new Promise<void>((resolve) => server.svc.server.on('request', () => ++started === UPLOADS && resolve()));
  const sockets: Socket[] = [];
  for (let i = 0; i < UPLOADS; i++) {
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.write('POST /resources/notes HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"');
    });
    socket.on('error', () => {});
    sockets.push(socket);
  }
  await reading;
  for (const socket of sockets) socket.destroy();
  await Promise.all(sockets.map((s) => (s.closed ? undefined : once(s, 'close'))));
  // A graceful stop resolves once every request has been handled to its end: each abort has been seen.
  await server.close();
  t.equal(started, UPLOADS, 'the server handled every upload');
  t.same(logged.filter((l) => l.includes('internal error')), [], 'no internal-error line was logged');

  const again = await startServer({ appDir: app.dir, store });
  t.teardown(() => again.close());
  t.same(await (await fetch(again.at('/resources/notes'))).json(), [], 'nothing was stored');
});
