// If-None-Match on an update or delete (RFC 9110 §13.1.2): a member at an entity tag it names
// (weak comparison), or any existing member for `*`, is 412 precondition-failed and nothing
// changes. It was ignored: `If-None-Match: *` on a PUT, which asks that no member exist, replaced
// the member. With If-Match, both must hold. For both handler forms.

import t from 'tap';
import { appServer, eachHandlerForm, send } from '../helpers/server.ts';

eachHandlerForm(t, async (t, delegate) => {
  const server = await appServer(t, { models: { people: { fields: { name: { type: 'string' } } } }, resources: { 'people.ts': delegate } });
  const url = server.at('/resources/people');
  const created = await send(url, 'POST', { name: 'Ada' });
  const { id } = (await created.json()) as { id: number };
  const etag = created.headers.get('etag')!;
  const name = async (): Promise<unknown> => ((await (await fetch(`${url}/${id}`)).json()) as { name: string }).name;

  for (const [header, why] of [
    ['*', '* (no member may exist)'],
    [etag, 'the current tag'],
    [`W/${etag}`, 'the current tag, weak'],
    [`"zz", ${etag}`, 'a list holding the current tag'],
  ] as const) {
    const put = await send(`${url}/${id}`, 'PUT', { name: 'Bob' }, { 'if-none-match': header });
    t.equal(put.status, 412, `PUT, If-None-Match ${why}: 412`);
    t.equal(((await put.json()) as { code: string }).code, 'precondition-failed');
    t.equal(await name(), 'Ada', `PUT, If-None-Match ${why}: nothing written`);
    const del = await send(`${url}/${id}`, 'DELETE', undefined, { 'if-none-match': header });
    t.equal(del.status, 412, `DELETE, If-None-Match ${why}: 412`);
    t.equal(await name(), 'Ada', `DELETE, If-None-Match ${why}: nothing deleted`);
  }

  // If-Match met, If-None-Match not: 412.
  t.equal((await send(`${url}/${id}`, 'PUT', { name: 'Bob' }, { 'if-match': etag, 'if-none-match': etag })).status, 412, 'both headers: both must hold');

  // A tag the member is no longer at: the write goes ahead.
  const updated = await send(`${url}/${id}`, 'PUT', { name: 'Cy' }, { 'if-none-match': '"0"' });
  t.equal(updated.status, 200, 'PUT, If-None-Match of another tag: written');
  t.equal(await name(), 'Cy');
  t.equal((await send(`${url}/${id}`, 'PUT', { name: 'Di' }, { 'if-none-match': etag })).status, 200, 'the tag before the update no longer matches');
  t.equal((await send(`${url}/424242`, 'PUT', { name: 'X' }, { 'if-none-match': '*' })).status, 404, 'no member: 404, as without the header');
  t.equal((await send(`${url}/${id}`, 'DELETE', undefined, { 'if-none-match': etag })).status, 204, 'DELETE, If-None-Match of an old tag: deleted');
});
