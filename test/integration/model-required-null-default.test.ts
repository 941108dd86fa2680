// A field declared `"required": true` with `"default_value": null`: the model loaded, though the two
// contradict each other (null is how a member says "absent"), and the collection served, refusing
// every create without the field as 400 "is required" in spite of the default the model declared.
// Such a model is now invalid: 500 model-invalid naming the field, and no member is stored.

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

const server = await appServer(t, {
  models: { notes: { fields: { title: { type: 'string', required: true, default_value: null }, n: { type: 'integer' } } } },
  resources: { 'notes.ts': 'svc.delegate();\n' },
});
const url = server.at('/resources/notes');

t.test('a request to the collection is 500 model-invalid naming the contradiction', async (t) => {
  for (const member of [{ n: 1 }, { title: 'a', n: 1 }]) {
    const res = await send(url, 'POST', member);
    t.equal(res.status, 500, JSON.stringify(member));
    t.match(await res.json(), {
      code: 'model-invalid',
      detail: 'models/notes.json is invalid: fields.title: "required": true and "default_value": null contradict each other (null means absent): give a default of type string, or leave default_value out',
    });
  }
});

t.test('with the contradiction resolved either way, no member was stored and none without a title is', async (t) => {
  server.write('models/notes.json', JSON.stringify({ fields: { title: { type: 'string', required: true }, n: { type: 'integer' } } }));
  t.same(await (await send(url, 'GET')).json(), [], 'nothing was stored');
  const res = await send(url, 'POST', { n: 1 });
  t.equal(res.status, 400);
  t.match(await res.json(), { code: 'invalid-member', errors: [{ field: 'title', message: 'is required' }] });

  server.write('models/notes.json', JSON.stringify({ fields: { title: { type: 'string', required: true, default_value: 'untitled' }, n: { type: 'integer' } } }));
  const created = await send(url, 'POST', { n: 2 });
  t.equal(created.status, 201);
  t.match(await created.json(), { title: 'untitled', n: 2 });
});
