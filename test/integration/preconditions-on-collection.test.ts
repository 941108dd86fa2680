// Preconditions on a collection's own URL were ignored: a list (GET, HEAD) and a create (POST)
// went ahead whatever If-Match or If-None-Match said. RFC 9110 §13.1.1: If-Match with a list of
// tags is true only when one matches the selected representation's entity tag, and a list or feed
// has none (README "The default handler": lists and feeds carry no ETag), so no tag can match:
// the server MUST NOT perform the method and answers 412. §13.1.2: If-None-Match `*` is false when
// the target resource has a current representation, which a collection always has: a POST asking
// "only if nothing is there" is 412, and nothing is created. `If-Match: *` holds (the collection
// exists), and If-None-Match with tags holds (none matches), so those go ahead as before. On a list,
// If-None-Match `*` is false too, and a GET or HEAD whose If-None-Match is false is 304 (it was 200).

import t from 'tap';
import { appServer, eachHandlerForm, send } from '../helpers/server.ts';

eachHandlerForm(t, async (t, delegate) => {
  const server = await appServer(t, { models: { people: { fields: { name: { type: 'string' } } } }, resources: { 'people.ts': delegate } });
  const url = server.at('/resources/people');
  const created = await send(url, 'POST', { name: 'Ada' });
  const tag = created.headers.get('etag')!;
  const total = async (): Promise<string | null> => (await fetch(url)).headers.get('x-total-count');

  for (const method of ['GET', 'HEAD']) {
    for (const [ifMatch, why] of [
      ['"zz"', 'a tag the server never sent'],
      [tag, "a member's tag (not the list's: the list has none)"],
    ] as const) {
      const res = await fetch(`${url}?count=5`, { method, headers: { 'if-match': ifMatch } });
      t.equal(res.status, 412, `${method} list, If-Match ${why}: 412`);
      await res.arrayBuffer();
    }
    const star = await fetch(url, { method, headers: { 'if-match': '*' } });
    t.equal(star.status, 200, `${method} list, If-Match *: 200`);
    await star.arrayBuffer();
    // §13.1.2: If-None-Match `*` is false (the collection has a current representation); on a GET
    // or HEAD that is 304 Not Modified, not the list.
    const none = await fetch(url, { method, headers: { 'if-none-match': '*' } });
    t.equal(none.status, 304, `${method} list, If-None-Match *: 304`);
    t.equal(await none.text(), '', 'no body');
    const tags = await fetch(url, { method, headers: { 'if-none-match': '"zz"' } });
    t.equal(tags.status, 200, `${method} list, If-None-Match of a tag: 200 (a list has no tag to match)`);
    await tags.arrayBuffer();
  }

  for (const [headers, why] of [
    [{ 'if-match': '"zz"' }, 'If-Match of a tag the collection is not at'],
    [{ 'if-match': tag }, "If-Match of a member's tag"],
    [{ 'if-none-match': '*' }, 'If-None-Match * (the collection exists)'],
  ] as const) {
    const res = await send(url, 'POST', { name: 'Bob' }, headers);
    t.equal(res.status, 412, `POST, ${why}: 412`);
    t.equal(((await res.json()) as { code: string }).code, 'precondition-failed');
    t.equal(await total(), '1', `POST, ${why}: nothing created`);
  }
  t.equal((await send(url, 'POST', { name: 'Cy' }, { 'if-match': '*' })).status, 201, 'POST, If-Match *: created');
  t.equal((await send(url, 'POST', { name: 'Di' }, { 'if-none-match': '"zz"' })).status, 201, 'POST, If-None-Match of a tag: created');
  t.equal(await total(), '3');
});
