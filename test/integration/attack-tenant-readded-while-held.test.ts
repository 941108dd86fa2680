// A tenant directory removed while a request holds the tenant, then put back: the next request
// opens the tenant afresh while the old app still serves the request in flight. When that request
// ends, closing the old app must not close what the new app is using: the old store closed every
// reader-thread read of the tenant's file, so a list of the new app in progress was cut short and
// answered 200 with fewer members than its X-Total-Count (README "Tenants": a removed directory
// stops being served on the next request, requests in flight finish first; no request fails and
// no data is lost because a tenant is closed).

import t from 'tap';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { App } from '../../src/tenancy/app.ts';
import type { Release } from '../../src/tenancy/tenants.ts';
import { readerEvents } from '../../src/store/sqlite/readers.ts';
import { getWithHost } from '../helpers/raw-http.ts';
import { tenantsServer } from '../helpers/server.ts';

/**
 * 64 KiB a member, 256 members: 16 MiB in all, in reader batches of 1 MiB. A JSON list is written in
 * chunks of about 32 KiB (one member each here, representation/json.ts CHUNK_CHARS): the list's read
 * stops after the first chunks, which a client that does not read takes no more of than the sockets
 * buffer (about 4 MiB on Linux). Fewer members than a chunk were read whole before the first write,
 * whatever the client did, and the read then raced the old app's close (40 members of 256 KiB).
 */
const ROWS = 256;
const TEXT = 'a'.repeat(64 * 1024);

/** Opens a connection and sends `data`; the caller reads (or not) what comes back. */
async function open(port: number, data: string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(data);
  return socket;
}

/** Everything `socket` sends until it closes, read from now on. */
function readAll(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => chunks.push(d));
  return new Promise((resolve) => socket.once('close', () => resolve(Buffer.concat(chunks).toString('utf8'))));
}

t.test('closing the removed app does not cut short a list of the tenant opened again', async (t) => {
  const s = await tenantsServer(t, ['acme'], {
    models: { notes: { fields: { text: { type: 'text' } } } },
    resources: { 'notes.ts': 'svc.delegate();\n' },
  });
  // Seeded through the store: ROWS members of TEXT.
  const app = (await s.apps.resolve('acme.localhost'))!;
  const model = app.models.get('notes')!;
  await Promise.all(Array.from({ length: ROWS }, () => app.store.insert(model, { text: TEXT }, new Date().toISOString())));
  s.apps.release(app);

  // A request in flight holds the old app: an upload whose body has not come yet. 100 Continue is
  // sent once the tenant is resolved (and held).
  const upload = await open(
    s.port,
    'POST /resources/notes HTTP/1.1\r\nHost: acme.localhost\r\nContent-Type: application/json\r\nContent-Length: 13\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
  );
  const uploadAnswer = readAll(upload);
  await new Promise<void>((resolve) => {
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('utf8');
      if (head.includes('100 Continue')) {
        upload.off('data', onData);
        resolve();
      }
    };
    upload.on('data', onData);
  });

  // The directory goes: the next request is 404, and the old app is retired (still held).
  rmSync(join(s.tenants, 'acme'), { recursive: true, force: true });
  t.equal((await getWithHost(s.port, 'acme.localhost', '/resources/notes?count=1')).status, 404, 'a removed tenant is 404');
  // It is back: a list that scans (text is not indexed) on the app opened again, read slowly.
  s.addTenant('acme');
  // The list's reads in the reader threads: its total, then its members.
  let started = 0;
  let finished = 0;
  let membersRunning!: () => void;
  const membersRead = new Promise<void>((resolve) => (membersRunning = resolve));
  const onRunning = () => {
    if (++started === 2) membersRunning();
  };
  const onFinished = () => void finished++;
  readerEvents.on('running', onRunning).on('finished', onFinished);
  t.teardown(() => void readerEvents.off('running', onRunning).off('finished', onFinished));
  const list = await open(s.port, 'GET /resources/notes?text__contains=a HTTP/1.1\r\nHost: acme.localhost\r\nConnection: close\r\n\r\n');
  await membersRead;

  // The upload ends: the old app is released and closed.
  const released = once(s.apps, 'released', { signal: AbortSignal.timeout(20_000) }) as Promise<[App, Release]>;
  upload.write('{"text":"x"}\n');
  const [old, reason] = await released;
  t.equal(reason, 'removed');
  t.equal(old, app, 'the app released is the old one');
  t.match(await uploadAnswer, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /, 'the request in flight finished on the old app');
  t.equal(finished, 1, 'the list was still reading its members when the old app closed');

  // The list is read to its end: every member, as its total says.
  const text = await readAll(list);
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  t.match(head, /^HTTP\/1\.1 200 /);
  t.match(head, new RegExp(`x-total-count: ${ROWS}`, 'i'));
  let body = text.slice(text.indexOf('\r\n\r\n') + 4);
  // Chunked: join the chunks' data.
  let joined = '';
  while (body.length > 0) {
    const eol = body.indexOf('\r\n');
    const size = parseInt(body.slice(0, eol), 16);
    if (!(size > 0)) break;
    joined += body.slice(eol + 2, eol + 2 + size);
    body = body.slice(eol + 2 + size + 2);
  }
  let members: unknown[] = [];
  try {
    members = JSON.parse(joined) as unknown[];
  } catch {
    t.fail(`the list is not whole JSON (${joined.length} characters)`);
  }
  t.equal(members.length, ROWS, 'every member is listed');
});
