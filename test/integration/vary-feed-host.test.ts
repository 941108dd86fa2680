// What the server writes, for caches and clients. A member or list is JSON or Atom by Accept, but
// no response said `Vary: Accept`, so a shared cache could serve one client's format to another
// (JSON and Atom share an ETag). A feed of `count=0` said "now" for feed/updated, though README
// says the newest match's `updated` (an empty page past the end said that). And Host headers that
// fit the pattern but no URL (`[1.2.3.4]`, `[:::::]`, `1.2.3.4.5.6`) were written into Location.

import t from 'tap';
import { raw } from '../helpers/raw-http.ts';
import { appServer, send } from '../helpers/server.ts';

t.test('Vary: Accept; feed/updated of count=0; hosts no URL can hold', async (t) => {
  const s = await appServer(t, { models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
  const created = await send(s.at('/resources/notes'), 'POST', { text: 'a' });
  const newest = ((await created.json()) as { updated: string }).updated;
  for (const path of ['/resources/notes', '/resources/notes/1', '/resources/notes?format_as=atom']) {
    t.equal((await fetch(s.at(path))).headers.get('vary'), 'Accept', `${path}: Vary: Accept`);
  }
  const feed = await (await fetch(s.at('/resources/notes?count=0&format_as=atom'))).text();
  t.match(feed, new RegExp(`<updated>${newest.replace(/[.]/g, '\\.')}</updated>`), 'count=0: the newest match');

  const port = new URL(s.url).port;
  // Twice each: the second answer comes from what the server remembers of the host.
  for (const host of ['[1.2.3.4]', '[:::::]', '[..]', '1.2.3.4.5.6', '0x1.2.3.4.5', '[1.2.3.4]', '1.2.3.4.5.6']) {
    const res = await raw(Number(port), `POST /resources/notes HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 12\r\nConnection: close\r\n\r\n{"text":"h"}`);
    t.equal(res.status, 400, `Host ${host}: 400`);
    t.match(res.body, /invalid-header/);
  }
  for (const host of ['[::1]:8080', '127.0.0.1', 'localhost', 'api.example.com:8443', '10.0.0.1:80', '[::1]:8080', '127.0.0.1']) {
    const res = await raw(Number(port), `GET /resources/notes/1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    t.equal(res.status, 200, `Host ${host}: served`);
  }
});
