// A field's type changed and changed back (the model file restored byte for byte, as a rollback
// does) rewrites the stored values (README "Models": `5` reads `true` as a boolean, and the values
// are rewritten in the new type), so the member is `{"x":1}` where it was `{"x":5}`. Its `updated`
// was left as it was, and the ETag is `updated` plus the model file's hash: the same strong tag for
// two different sets of bytes (README "Concurrency": "so that two different sets of bytes never
// share a strong validator"). A client holding `{"x":5}` revalidated with 304, and its If-Match
// still named the member, so its update went ahead over a change it had not seen.

import t from 'tap';
import { appServer, eachHandlerForm, send } from '../helpers/server.ts';

const AS_INTEGER = JSON.stringify({ fields: { x: { type: 'integer' } } });
// Another size too, so that the change is seen whatever the file system's time resolution.
const AS_BOOLEAN = JSON.stringify({ fields: { x: { type: 'boolean', description: 'made a flag' } } });

eachHandlerForm(t, async (t, delegate) => {
  const server = await appServer(t, { files: { 'models/p.json': AS_INTEGER }, resources: { 'p.ts': delegate } });
  const url = server.at('/resources/p');
  const created = await send(url, 'POST', { x: 5 });
  t.equal(created.status, 201);
  const { id } = (await created.json()) as { id: number };
  const first = await fetch(`${url}/${id}`);
  const tag = first.headers.get('etag')!;
  t.match(await first.json(), { id, x: 5 }, 'x is 5');

  server.write('models/p.json', AS_BOOLEAN);
  const asBoolean = await fetch(`${url}/${id}`);
  t.match(await asBoolean.json(), { x: true }, 'as a boolean: true (the stored value is rewritten)');

  server.write('models/p.json', AS_INTEGER); // the rollback: the same file as before
  const now = await fetch(`${url}/${id}`);
  const body = (await now.json()) as { x: number };
  t.equal(body.x, 1, 'as an integer again: 1, no longer 5 (README "Models")');
  t.not(now.headers.get('etag'), tag, 'other bytes than {"x":5}: another strong ETag');

  const revalidated = await fetch(`${url}/${id}`, { headers: { 'if-none-match': tag } });
  t.equal(revalidated.status, 200, 'If-None-Match with the tag of {"x":5}: 200 with the member as it is, not 304');

  const put = await send(`${url}/${id}`, 'PUT', { x: 6 }, { 'if-match': tag });
  t.equal(put.status, 412, 'If-Match with the tag of {"x":5}: the member changed since, 412');
});
