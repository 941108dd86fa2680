// Attack: a JSON body that sends a field twice, an invalid value first and a valid one last.
// JSON.parse keeps the last and drops the first without a word, so the body was stored (201) with
// the invalid value never reported, while the same fields as Atom (a duplicate <dt>) are a 400.
// A field sent twice is now 400 invalid-json on create and update, and nothing is stored.

import t from 'tap';
import { appServer, eachHandlerForm, send } from '../helpers/server.ts';

interface Problem {
  code: string;
  detail: string;
}

eachHandlerForm(t, async (t, delegate) => {
  const server = await appServer(t, {
    models: { things: { fields: { name: { type: 'string' }, n: { type: 'integer' } } } },
    resources: { 'things.ts': delegate },
  });
  const url = server.at('/resources/things');

  t.test('create with a field sent twice is 400 invalid-json and stores nothing', async (t) => {
    for (const body of ['{"name":"first","n":"not-an-int","name":"second","n":5}', '{"n":"x","\\u006e":5}']) {
      const res = await send(url, 'POST', body);
      t.equal(res.status, 400, body);
      t.match(res.headers.get('content-type'), /^application\/problem\+json/);
      const problem = (await res.json()) as Problem;
      t.equal(problem.code, 'invalid-json');
      t.match(problem.detail, /^The field "(name|n)" appears more than once in the JSON object: send each field once\.$/);
    }
    t.same(await (await send(url, 'GET')).json(), []);
  });

  t.test('update with a field sent twice is 400 invalid-json and changes nothing', async (t) => {
    const created = await send(url, 'POST', { name: 'kept', n: 1 });
    t.equal(created.status, 201);
    const member = (await created.json()) as { id: number; updated: string };
    const res = await send(`${url}/${member.id}`, 'PUT', `{"id":${member.id},"name":"changed","n":2,"name":"again"}`);
    t.equal(res.status, 400);
    const problem = (await res.json()) as Problem;
    t.equal(problem.code, 'invalid-json');
    t.match(problem.detail, /field "name" appears more than once/);
    t.same(await (await send(`${url}/${member.id}`, 'GET')).json(), { id: member.id, updated: member.updated, name: 'kept', n: 1 });
  });

  t.test('the same name in a nested value is not a duplicate field', async (t) => {
    const res = await send(url, 'POST', '{"name":"{\\"n\\":1,\\"n\\":2}","n":3}');
    t.equal(res.status, 201);
    t.match(await res.json(), { name: '{"n":1,"n":2}', n: 3 });
    const nested = await send(url, 'POST', '{"name":{"n":1,"n":2}}');
    t.equal(nested.status, 400);
    t.equal(((await nested.json()) as Problem).code, 'invalid-member', 'a nested object is just the wrong type');
  });
});
