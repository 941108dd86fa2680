// If-Match on a retrieve (GET, HEAD of a member) was ignored: a tag the member is no longer at was
// answered 200 with the member. RFC 9110 §13.1.1: when the condition is false the origin server
// MUST NOT perform the method and answers 412 (the 2xx exception is for state changes already made,
// which a GET never is); it is a precondition on any method, not only on writes (RFC 9110 §13.2.2,
// step 1, before If-None-Match). A client that fetches "the member as of the tag I hold" must be
// told the member changed. A matching tag (of either representation, as on writes: README "The
// default handler", Concurrency) or `*` is 200 as before; a member that does not exist stays 404
// (§13.2.1: preconditions are ignored when the answer would be another error anyway).

import t from 'tap';
import { appServer, eachHandlerForm, send } from '../helpers/server.ts';

const ATOM = 'application/atom+xml';

eachHandlerForm(t, async (t, delegate) => {
  const server = await appServer(t, { models: { people: { fields: { name: { type: 'string' } } } }, resources: { 'people.ts': delegate } });
  const url = server.at('/resources/people');
  const created = await send(url, 'POST', { name: 'Ada' });
  const { id } = (await created.json()) as { id: number };
  const oldJson = created.headers.get('etag')!;
  const oldAtom = (await fetch(`${url}/${id}`, { headers: { accept: ATOM } })).headers.get('etag')!;
  t.equal((await send(`${url}/${id}`, 'PUT', { name: 'Bob' })).status, 200);
  const json = (await fetch(`${url}/${id}`)).headers.get('etag')!;
  const atom = (await fetch(`${url}/${id}`, { headers: { accept: ATOM } })).headers.get('etag')!;

  for (const method of ['GET', 'HEAD']) {
    for (const [ifMatch, accept, why] of [
      [oldJson, 'application/json', 'the JSON tag of before the update'],
      [oldAtom, ATOM, 'the Atom tag of before the update'],
      [`${oldJson}, "zz"`, 'application/json', 'a list of tags none of which is current'],
      [`W/${json}`, 'application/json', 'the current tag, weak (If-Match compares strongly)'],
    ] as const) {
      const res = await fetch(`${url}/${id}`, { method, headers: { accept, 'if-match': ifMatch } });
      t.equal(res.status, 412, `${method}, If-Match ${why}: 412`);
      if (method === 'GET') t.equal(((await res.json()) as { code: string }).code, 'precondition-failed');
      else await res.arrayBuffer();
    }
    for (const [ifMatch, accept, why] of [
      [json, 'application/json', 'the current JSON tag'],
      [atom, ATOM, 'the current Atom tag'],
      [`"zz", ${json}`, 'application/json', 'a list holding the current tag'],
      ['*', 'application/json', '*'],
    ] as const) {
      const res = await fetch(`${url}/${id}`, { method, headers: { accept, 'if-match': ifMatch } });
      t.equal(res.status, 200, `${method}, If-Match ${why}: 200`);
      await res.arrayBuffer();
    }
  }
  t.equal((await fetch(`${url}/424242`, { headers: { 'if-match': json } })).status, 404, 'no member: 404, as without the header');
});
