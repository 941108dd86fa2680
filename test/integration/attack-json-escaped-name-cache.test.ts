// Attack: one request poisons V8's JSON.parse for every later one. On Node 24's V8, once any body
// in the process parsed as an object with names `text` then `\` (`{"text":"a","\\":1}`, refused
// as an unknown field), a later body of another client that escapes a name in that place read it
// as `\`: `{"text":"b","\u006e":5}` was 400 unknown field "\" instead of n = 5, and a custom
// handler got the wrong name (https://github.com/nodejs/node/issues/63785). Bodies with an escaped
// name are now read around that cache.

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

const server = await appServer(t, {
  models: { notes: { fields: { text: { type: 'string' }, n: { type: 'integer' } } } },
  resources: { 'notes.ts': 'svc.delegate();\n' },
});
const url = server.at('/resources/notes');

t.test('a name ending in a backslash does not change how later bodies are read', async (t) => {
  const poison = await send(url, 'POST', '{"text":"a","\\\\":1}');
  t.equal(poison.status, 400);
  t.match(await poison.json(), { code: 'invalid-member', errors: [{ field: '\\' }] });

  for (const body of ['{"text":"b","\\u006e":5}', '{"text":"b","\\u006E":5}', '{"text":"b", "\\u006e" : 5}']) {
    const res = await send(url, 'POST', body);
    t.equal(res.status, 201, body);
    t.match(await res.json(), { text: 'b', n: 5 });
  }
});

t.test('two different escaped names are not read as one', async (t) => {
  t.equal((await send(url, 'POST', String.raw`{"text":"a","\\":1,"n":1}`)).status, 400);
  // Read through the poisoned cache, "\n" became "\" and its value was lost under the next "\".
  const res = await send(url, 'POST', String.raw`{"text":"b","\n":2,"\\":3}`);
  t.equal(res.status, 400);
  const problem = (await res.json()) as { code: string; errors: { field: string }[] };
  t.equal(problem.code, 'invalid-member');
  t.same(problem.errors.map((e) => e.field).sort(), ['\n', '\\'], 'both unknown names are listed');
  const stored = (await (await send(url, 'GET')).json()) as { text: string; n: number }[];
  t.same(stored.map((m) => [m.text, m.n]), [['b', 5], ['b', 5], ['b', 5]], 'only the valid bodies were stored');
});
