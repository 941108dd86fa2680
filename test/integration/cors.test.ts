// CORS: off by default; with --cors, allowed origins get the headers a browser needs (on problems
// too), preflights are answered from the methods the collection serves, other origins get none.

import t from 'tap';
import { appServer, HANDLER_FORMS } from '../helpers/server.ts';

const MODELS = { notes: { fields: { text: { type: 'text' } } } };

t.test('without --cors no CORS header is ever sent', async (t) => {
  const server = await appServer(t, { models: MODELS, resources: { 'notes.ts': 'svc.delegate();\n' } });
  const res = await fetch(server.at('/resources/notes'), { headers: { origin: 'https://app.example.com' } });
  t.equal(res.headers.get('access-control-allow-origin'), null);
  const pre = await fetch(server.at('/resources/notes'), { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });
  t.equal(pre.status, 405, 'OPTIONS is not a method of this server');
});

t.test('an allowed origin gets the headers, on answers and on problems; another origin gets none', async (t) => {
  const server = await appServer(t, { models: MODELS, resources: { 'notes.ts': 'svc.delegate();\n' } }, { cors: ['https://app.example.com'] });
  const res = await fetch(server.at('/resources/notes'), { headers: { origin: 'https://app.example.com' } });
  t.equal(res.headers.get('access-control-allow-origin'), 'https://app.example.com');
  t.equal(res.headers.get('vary'), 'Origin, Accept');
  for (const h of ['ETag', 'Location', 'Link', 'X-Total-Count']) t.match(res.headers.get('access-control-expose-headers'), h);
  const problem = await fetch(server.at('/resources/notes/999'), { headers: { origin: 'https://app.example.com' } });
  t.equal(problem.status, 404);
  t.equal(problem.headers.get('access-control-allow-origin'), 'https://app.example.com', 'a browser can read the problem');
  const other = await fetch(server.at('/resources/notes'), { headers: { origin: 'https://evil.example' } });
  t.equal(other.headers.get('access-control-allow-origin'), null);
});

t.test('preflight: 204 with the methods the collection serves', async (t) => {
  const server = await appServer(
    t,
    { models: { ...MODELS, every: MODELS.notes }, resources: { 'notes.ts': HANDLER_FORMS[0].code, 'every.ts': HANDLER_FORMS[1].code } },
    { cors: ['*'] },
  );
  const preflight = (path: string, method: string, headers = 'content-type, if-match, cookie') =>
    fetch(server.at(path), { method: 'OPTIONS', headers: { origin: 'https://x.example', 'access-control-request-method': method, 'access-control-request-headers': headers } });
  const collection = await preflight('/resources/notes', 'POST');
  t.equal(collection.status, 204);
  t.equal(collection.headers.get('access-control-allow-origin'), '*');
  t.equal(collection.headers.get('access-control-allow-methods'), 'GET, POST, HEAD', 'the default handler: list and create');
  t.equal(collection.headers.get('access-control-allow-headers'), 'content-type, if-match', 'only headers the API reads');
  t.equal((await preflight('/resources/notes/1', 'PUT')).headers.get('access-control-allow-methods'), 'GET, PUT, DELETE, HEAD');
  t.equal((await preflight('/resources/every/1', 'PUT')).headers.get('access-control-allow-methods'), 'GET, PUT, POST, DELETE, HEAD', 'unknown without running the handler: every method');
  t.equal((await preflight('/resources/nope', 'GET')).status, 404);
  t.equal((await preflight('/resources/types', 'GET')).headers.get('access-control-allow-methods'), 'GET, HEAD');
});

// README "CORS": the methods of the on<Event> functions a handler defines, read from its source; every
// method only for a handler that defines none (a top-level script), where only running it would tell.
t.test('preflight: a handler of event functions gets the methods of the events it defines', async (t) => {
  const server = await appServer(
    t,
    {
      models: { ...MODELS, reads: MODELS.notes, script: MODELS.notes },
      resources: {
        'notes.ts': HANDLER_FORMS[0].code,
        'reads.ts': 'export function onList() { svc.delegate(); }\nexport function onRetrieve() { svc.delegate(); }\n',
        'script.ts': "if (zget('/request/method') === 'GET') svc.delegate();\n",
      },
    },
    { cors: ['*'] },
  );
  const allowed = async (path: string, method: string) => {
    const res = await fetch(server.at(path), { method: 'OPTIONS', headers: { origin: 'https://x.example', 'access-control-request-method': method } });
    t.equal(res.status, 204);
    return res.headers.get('access-control-allow-methods');
  };
  t.equal(await allowed('/resources/reads', 'POST'), 'GET, HEAD', 'onList only on the collection');
  t.equal(await allowed('/resources/reads/1', 'DELETE'), 'GET, HEAD', 'onRetrieve only on a member');
  const create = await fetch(server.at('/resources/reads'), { method: 'POST', headers: { origin: 'https://x.example', 'content-type': 'application/json' }, body: '{}' });
  t.equal(create.status, 405, 'what the preflight left out is 405');
  t.equal(create.headers.get('allow'), 'GET, HEAD');
  t.equal(await allowed('/resources/script', 'POST'), 'GET, PUT, POST, DELETE, HEAD', 'a top-level script: every method');
  t.equal(await allowed('/resources/script/1', 'PUT'), 'GET, PUT, POST, DELETE, HEAD');
});

// A preflight that leaves out a method the handler serves makes a browser refuse a request that
// works. The scan of the source cannot tell a class's methods (any name, any case: `create`,
// `ONCREATE`) nor a top-level script that only calls something named like an event function: such
// handlers get every method, as a handler that defines none.
t.test('preflight: never fewer methods than the handler serves', async (t) => {
  const server = await appServer(
    t,
    {
      models: { a: MODELS.notes, b: MODELS.notes, c: MODELS.notes },
      resources: {
        'a.ts': 'export default class { onList() { svc.delegate(); } create() { svc.delegate(); } }',
        'b.ts': 'export default class { onList() { svc.delegate(); } ONCREATE() { svc.delegate(); } }',
        'c.ts': 'const hooks = { onList() { return 1; } };\nhooks.onList();\nsvc.delegate();',
      },
    },
    { cors: ['*'] },
  );
  for (const c of ['a', 'b', 'c']) {
    const pre = await fetch(server.at(`/resources/${c}`), { method: 'OPTIONS', headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' } });
    t.equal(pre.status, 204, c);
    t.ok(pre.headers.get('access-control-allow-methods')!.split(', ').includes('POST'), `${c}: ${pre.headers.get('access-control-allow-methods')} has POST`);
    const created = await fetch(server.at(`/resources/${c}`), { method: 'POST', headers: { origin: 'https://x.example', 'content-type': 'application/json' }, body: '{"text":"x"}' });
    t.equal(created.status, 201, `${c}: and POST creates`);
  }
});
