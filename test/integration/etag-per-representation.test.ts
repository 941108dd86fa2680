// The JSON and the Atom of a member are different bytes, and shared one strong ETag: a client
// comparing validators across formats, or a range request, could take one for the other (RFC 9110
// §8.8.3). Each representation has its own tag now. If-None-Match on a retrieve is 304 only for
// the tag of the representation asked for (the other's is of bytes the client has not got); a
// conditional update or delete takes the tag of either, since both name the member's state.

import t from 'tap';
import { appServer, eachHandlerForm, send } from '../helpers/server.ts';

const ATOM = 'application/atom+xml';

eachHandlerForm(t, async (t, delegate) => {
  const server = await appServer(t, { models: { people: { fields: { name: { type: 'string' } } } }, resources: { 'people.ts': delegate } });
  const url = server.at('/resources/people');
  const get = (id: number, headers: Record<string, string> = {}) => fetch(`${url}/${id}`, { headers });
  const name = async (id: number): Promise<unknown> => ((await (await get(id)).json()) as { name?: string }).name;
  /** The member's current tags, JSON then Atom. */
  const tags = async (id: number): Promise<[string, string]> => [(await get(id)).headers.get('etag')!, (await get(id, { accept: ATOM })).headers.get('etag')!];
  const atomEntry = (n: string) =>
    `<entry xmlns="http://www.w3.org/2005/Atom"><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><ol class="xoxo"><li name="people"><dl><dt>name</dt><dd>${n}</dd></dl></li></ol></div></content></entry>`;
  const create = async (n: string): Promise<number> => ((await (await send(url, 'POST', { name: n })).json()) as { id: number }).id;

  t.test('each representation has its own strong ETag, the same on every response that carries it', async (t) => {
    const created = await send(url, 'POST', { name: 'Ada' });
    const { id } = (await created.json()) as { id: number };
    const [json, atom] = await tags(id);
    t.match(json, /^"[^"]+"$/, 'JSON: strong');
    t.match(atom, /^"[^"]+"$/, 'Atom: strong');
    t.not(atom, json, 'the JSON and the Atom tag differ');
    t.equal(created.headers.get('etag'), json, 'create answered in JSON: the JSON tag');
    t.equal((await fetch(`${url}/${id}?format_as=atom`)).headers.get('etag'), atom, 'format_as=atom: the Atom tag');
    t.equal((await fetch(`${url}/${id}`, { method: 'HEAD', headers: { accept: ATOM } })).headers.get('etag'), atom, 'HEAD: as GET');
    const createdAtom = await send(url, 'POST', { name: 'Bo' }, { accept: ATOM });
    const other = Number(/\/(\d+)$/.exec(createdAtom.headers.get('location')!)![1]);
    t.equal(createdAtom.headers.get('etag'), (await tags(other))[1], 'create answered in Atom: the Atom tag');
    const updated = await send(`${url}/${id}`, 'PUT', { name: 'Ada2' }, { accept: ATOM });
    t.equal(updated.headers.get('etag'), (await tags(id))[1], 'update answered in Atom: the Atom tag');
    // A list has no ETag (it has no single `updated`): there is nothing to tell apart.
    for (const accept of ['application/json', ATOM]) t.equal((await fetch(url, { headers: { accept } })).headers.get('etag'), null, `list, ${accept}: no ETag`);
  });

  t.test('If-None-Match on a retrieve: 304 for the tag of the representation asked for, 200 for the other one’s', async (t) => {
    const id = await create('Cy');
    const [json, atom] = await tags(id);
    const cases: [Record<string, string>, string, number, string][] = [
      [{ accept: ATOM }, atom, 304, 'Atom asked, Atom tag'],
      [{ accept: ATOM }, `W/${atom}`, 304, 'Atom asked, Atom tag weak'],
      [{}, json, 304, 'JSON asked, JSON tag'],
      [{ accept: ATOM }, json, 200, 'Atom asked, JSON tag'],
      [{}, atom, 200, 'JSON asked, Atom tag'],
      [{}, `${atom}, ${json}`, 304, 'JSON asked, both tags'],
      [{ accept: ATOM }, `${json.slice(0, -1)}-xml"`, 200, 'a suffix of no representation'],
    ];
    for (const [headers, inm, status, why] of cases) {
      const res = await get(id, { ...headers, 'if-none-match': inm });
      t.equal(res.status, status, `${why}: ${status}`);
      const expected = headers.accept === ATOM ? atom : json;
      t.equal(res.headers.get('etag'), expected, `${why}: the tag of the representation asked for`);
      const body = await res.text();
      if (status === 304) t.equal(body, '', `${why}: no body`);
      else t.match(body, headers.accept === ATOM ? /^<\?xml/ : /^\{/, `${why}: the representation asked for`);
    }
  });

  t.test('a conditional update or delete takes the tag of either representation of the member as it is', async (t) => {
    const id = await create('Di');
    let [json, atom] = await tags(id);
    // Read as Atom, written as JSON: the member is unchanged, so the write goes ahead.
    const put = await send(`${url}/${id}`, 'PUT', { name: 'Di2' }, { 'if-match': atom });
    t.equal(put.status, 200, 'PUT JSON, If-Match of the Atom tag: written');
    t.equal(await name(id), 'Di2');
    const stale = atom;
    [json, atom] = await tags(id);
    // Read as JSON, written as Atom.
    const putAtom = await fetch(`${url}/${id}`, { method: 'PUT', headers: { 'content-type': ATOM, 'if-match': json }, body: atomEntry('Di3') });
    t.equal(putAtom.status, 200, 'PUT Atom, If-Match of the JSON tag: written');
    t.equal(await name(id), 'Di3');

    t.equal((await send(`${url}/${id}`, 'PUT', { name: 'X' }, { 'if-match': stale })).status, 412, 'an Atom tag of before: 412');
    t.equal((await send(`${url}/${id}`, 'PUT', { name: 'X' }, { 'if-match': `W/${(await tags(id))[1]}` })).status, 412, 'If-Match still compares strongly');
    [json, atom] = await tags(id);
    t.equal((await send(`${url}/${id}`, 'PUT', { name: 'X' }, { 'if-match': `${json.slice(0, -1)}-xml"` })).status, 412, 'a suffix of no representation: 412');
    t.equal((await send(`${url}/${id}`, 'PUT', { name: 'X' }, { 'if-none-match': atom })).status, 412, 'If-None-Match of the current Atom tag on a PUT: 412');
    t.equal((await send(`${url}/${id}`, 'DELETE', undefined, { 'if-none-match': atom })).status, 412, 'and on a DELETE');
    t.equal((await send(`${url}/${id}`, 'DELETE', undefined, { 'if-match': stale })).status, 412, 'DELETE, an Atom tag of before: 412');
    t.equal(await name(id), 'Di3', 'the 412s changed nothing');
    t.equal((await send(`${url}/${id}`, 'DELETE', undefined, { 'if-match': atom })).status, 204, 'DELETE, If-Match of the current Atom tag: deleted');
    t.equal((await get(id)).status, 404);
  });
});

// A model change changes a member's representations (a field no longer declared is no longer
// served) though the member is unchanged: its tag was the same, so a cache revalidating with it got
// 304 and kept serving the field. The tag names the model's version too; a write's condition is on
// the member, so a tag of before the change still names it there.
eachHandlerForm(t, async (t, delegate) => {
  const server = await appServer(t, {
    models: { notes: { fields: { title: { type: 'string' }, secret: { type: 'string' } } } },
    resources: { 'notes.ts': delegate },
  });
  const url = server.at('/resources/notes');
  const { id } = (await (await send(url, 'POST', { title: 'a', secret: 's' })).json()) as { id: number };
  const before = await fetch(`${url}/${id}`);
  t.match(await before.json(), { secret: 's' });
  const [json, atom] = [before.headers.get('etag')!, (await fetch(`${url}/${id}`, { headers: { accept: ATOM } })).headers.get('etag')!];

  server.write('models/notes.json', JSON.stringify({ fields: { title: { type: 'string' } } }));
  for (const [accept, tag] of [['application/json', json], [ATOM, atom]] as const) {
    const res = await fetch(`${url}/${id}`, { headers: { accept, 'if-none-match': tag } });
    t.equal(res.status, 200, `${accept}: a tag of before the model changed is not the representation now`);
    t.not(res.headers.get('etag'), tag, `${accept}: a new tag`);
    t.notMatch(await res.text(), /"secret"|<dt>secret</, `${accept}: the field is no longer served`);
    t.equal((await fetch(`${url}/${id}`, { headers: { accept, 'if-none-match': res.headers.get('etag')! } })).status, 304, `${accept}: the new tag revalidates`);
  }
  const put = await send(`${url}/${id}`, 'PUT', { title: 'b' }, { 'if-match': json });
  t.equal(put.status, 200, 'If-Match of before the model changed: the member is as it was, so it is written');
});
