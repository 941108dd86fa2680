// Attack: a JSON body nested 100,000 levels deep. JSON.parse copes, but the parsed body is copied
// into the handler's isolate, where it overflowed the stack: the isolate was replaced and the
// request was a 503, so a 200 KB body could keep a tenant's sandbox restarting. A member is an
// object of scalar fields; a body nested deeper than 100 levels is refused before it is parsed.

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

const model = { fields: { text: { type: 'string' } } };
const server = await appServer(t, {
  models: { plain: model, scripted: model },
  resources: {
    'plain.ts': 'svc.delegate();\n',
    // Event functions: the request enters the sandbox.
    'scripted.ts': 'export function onCreate() { svc.delegate(); }\nexport function onList() { svc.delegate(); }\n',
  },
});

const deep = (n: number) => `{"text":${'['.repeat(n)}${']'.repeat(n)}}`;

t.test('a body nested 100,000 levels deep is 400 invalid-json', async (t) => {
  for (const collection of ['plain', 'scripted']) {
    for (const body of [deep(100_000), `{"text":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`, '['.repeat(200_000)]) {
      const res = await send(server.at(`/resources/${collection}`), 'POST', body);
      t.equal(res.status, 400, collection);
      t.match(res.headers.get('content-type'), /^application\/problem\+json/);
      const problem = (await res.json()) as { code: string; detail: string };
      t.equal(problem.code, 'invalid-json');
      t.match(problem.detail, /nested deeper than 100 levels/);
    }
  }
});

t.test('nesting in strings does not count, and shallow bodies are judged as before', async (t) => {
  const res = await send(server.at('/resources/scripted'), 'POST', { text: '[[[[{{{{'.repeat(30) });
  t.equal(res.status, 400, 'over max_length, not over the nesting limit');
  t.equal(((await res.json()) as { code: string }).code, 'invalid-member');
  const ok = await send(server.at('/resources/scripted'), 'POST', { text: '[{"\\"' });
  t.equal(ok.status, 201);
  const nested = await send(server.at('/resources/scripted'), 'POST', deep(99));
  t.equal(nested.status, 400);
  t.equal(((await nested.json()) as { code: string }).code, 'invalid-member', 'within the limit: the field is just the wrong type');
});

t.test('the sandbox still answers and nothing else was stored', async (t) => {
  const res = await send(server.at('/resources/scripted'), 'GET');
  t.equal(res.status, 200);
  t.same(((await res.json()) as { text: string }[]).map((m) => m.text), ['[{"\\"']);
  t.same(await (await send(server.at('/resources/plain'), 'GET')).json(), []);
});
