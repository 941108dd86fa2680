// An Atom entry's links are absolute, built from --public-url or else the request's Host, but its
// ETag did not depend on them: after an operator changed --public-url and restarted, a client
// revalidating its cached entry got 304 and kept links to the old URL. The Atom tag now depends on
// the URL its links are built from; the JSON tag, whose body holds no URL, does not. A conditional
// write still takes the Atom tag a client got, whatever URL it was got at.

import t from 'tap';
import { join } from 'node:path';
import { getWithHost } from '../helpers/raw-http.ts';
import { makeApp, send, startServer } from '../helpers/server.ts';

const ATOM = 'application/atom+xml';

t.test('--public-url changed across a restart: the Atom tag changes, the JSON tag does not', async (t) => {
  const app = makeApp({ models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
  t.teardown(() => app.cleanup());
  // A database file, so that the second server serves what the first one stored.
  const store = `sqlite:${join(app.dir, 'notes.sqlite')}`;

  const before = await startServer({ appDir: app.dir, store, publicUrl: 'https://old.example.com' });
  const { id } = (await (await send(before.at('/resources/notes'), 'POST', { text: 'a' })).json()) as { id: number };
  const oldAtom = await fetch(before.at(`/resources/notes/${id}`), { headers: { accept: ATOM } });
  const atomTag = oldAtom.headers.get('etag')!;
  t.match(await oldAtom.text(), 'https://old.example.com/resources/notes/');
  const jsonTag = (await fetch(before.at(`/resources/notes/${id}`))).headers.get('etag')!;
  await before.close();

  const after = await startServer({ appDir: app.dir, store, publicUrl: 'https://new.example.com' });
  t.teardown(() => after.close());
  const member = after.at(`/resources/notes/${id}`);
  const revalidated = await fetch(member, { headers: { accept: ATOM, 'if-none-match': atomTag } });
  t.equal(revalidated.status, 200, 'If-None-Match of the Atom tag got at the old URL: 200');
  const body = await revalidated.text();
  t.match(body, `<id>https://new.example.com/resources/notes/${id}</id>`, 'with the links of the new URL');
  t.notMatch(body, 'old.example.com');
  const newTag = revalidated.headers.get('etag')!;
  t.not(newTag, atomTag, 'another Atom tag');
  t.match(newTag, /^"[0-9a-z]+\.[0-9a-f]{8}-atom"$/, 'of the same form');
  t.equal((await fetch(member, { headers: { accept: ATOM, 'if-none-match': newTag } })).status, 304, 'the new Atom tag revalidates');

  const json = await fetch(member, { headers: { 'if-none-match': jsonTag } });
  t.equal(json.status, 304, 'JSON holds no URL: its tag is the same, and revalidates');
  t.equal(json.headers.get('etag'), jsonTag);

  // The write's condition is on the member, which the Atom tag got at the old URL names as it is.
  const put = await send(member, 'PUT', { text: 'b' }, { 'if-match': atomTag });
  t.equal(put.status, 200, 'If-Match of the Atom tag got at the old URL: written');
  t.equal((await send(member, 'PUT', { text: 'c' }, { 'if-match': atomTag })).status, 412, 'and once written, it is a tag of before: 412');
});

t.test('without --public-url: the Atom tag follows the Host its links are built from', async (t) => {
  const app = makeApp({ models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
  t.teardown(() => app.cleanup());
  const server = await startServer({ appDir: app.dir, store: 'sqlite::memory:' });
  t.teardown(() => server.close());
  const { id } = (await (await send(server.at('/resources/notes'), 'POST', { text: 'a' })).json()) as { id: number };
  const path = `/resources/notes/${id}`;
  const get = (host: string, headers: Record<string, string> = {}) => getWithHost(server.port, host, path, headers);

  const a = await get('a.example.com', { accept: ATOM });
  const b = await get('b.example.com', { accept: ATOM });
  t.match(a.text, 'http://a.example.com/resources/notes/');
  t.match(b.text, 'http://b.example.com/resources/notes/');
  t.not(a.headers.etag, b.headers.etag, 'different links: different Atom tags');
  t.equal((await get('a.example.com', { accept: ATOM })).headers.etag, a.headers.etag, 'the same Host: the same tag');
  const other = await get('b.example.com', { accept: ATOM, 'if-none-match': String(a.headers.etag) });
  t.equal(other.status, 200, 'If-None-Match of the tag got at another Host: 200');
  t.match(other.text, 'http://b.example.com/resources/notes/', 'with the links of that Host');
  t.equal((await get('a.example.com', { accept: ATOM, 'if-none-match': String(a.headers.etag) })).status, 304, 'at its own Host: 304');
  t.equal((await get('a.example.com')).headers.etag, (await get('b.example.com')).headers.etag, 'JSON: one tag whatever the Host');
});
