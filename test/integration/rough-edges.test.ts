// What a new user ran into, each pinned down: built-in imports refused even when unused, no
// CommonJS shim in the sandbox, one wording of each status, a missing app directory named as
// such, `svc check` saying each problem once, and paging links with the client's own query.

import { request } from 'node:http';
import t from 'tap';
import { runSvc } from '../helpers/process.ts';
import { appServer, makeApp, send } from '../helpers/server.ts';

const svc = (...args: string[]) => runSvc(args);

const MODEL = { fields: { name: { type: 'string' } } };

t.test('a built-in import is refused whether the handler uses it or not; require, process and Buffer do not exist', async (t) => {
  const server = await appServer(
    t,
    {
      models: { unused: MODEL, probe: MODEL },
      resources: {
        'unused.ts': "import fs from 'node:fs';\nexport function onList() { echo('no fs here'); }\n",
        'probe.ts': "export function onList() { zput('/request/json/output', [typeof require, typeof process, typeof Buffer, typeof module, typeof exports]); render(); }\n",
      },
    },
    { dev: true },
  );
  const unused = await fetch(server.at('/resources/unused'));
  t.equal(unused.status, 500);
  t.match(await unused.json(), { code: 'handler-compile-error', detail: /Cannot import "node:fs"/ });
  t.same(await (await fetch(server.at('/resources/probe'))).json(), ['undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
});

t.test('the status line and the problem title say the same', async (t) => {
  const server = await appServer(t, { models: { notes: MODEL }, resources: { 'notes.ts': 'svc.delegate();\n' } }, { limits: { maxBodyBytes: 10 } });
  const { statusMessage, title } = await new Promise<{ statusMessage: string; title: string }>((resolve, reject) => {
    const req = request(server.at('/resources/notes'), { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ statusMessage: res.statusMessage!, title: JSON.parse(text).title }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ name: 'x'.repeat(100) }));
  });
  t.equal(title, 'Content Too Large');
  t.equal(statusMessage, 'Content Too Large');
});

t.test('a missing --app directory is one line naming the flag', async (t) => {
  const { code, out } = await svc('serve', '--app', '/no/such/app', '--port', '0', '--store', 'sqlite::memory:');
  t.equal(code, 1);
  t.equal(out.trim(), 'svc: --app /no/such/app: no such directory (an app directory holds models/ and resources/)');
  t.notMatch(out, /ENOENT|lstat/);
});

t.test('svc check names each problem once, and models without a handler', async (t) => {
  const app = makeApp({ models: { broken: '{"fields": {"a": {"type": "nope"}}}', lonely: MODEL }, resources: {} });
  t.teardown(() => app.cleanup());
  const { code, out } = await svc('check', '--app', app.dir);
  t.equal(code, 1);
  t.equal(out.split('\n').filter((l) => l.startsWith('models/broken.json')).length, 1, out);
  t.match(out, /models\/lonely\.json: warning: no handler resources\/lonely\.ts/);
});

t.test('paging links carry the client’s own query, not filters the handler added', async (t) => {
  const handler = "export function onList() { zput('/request/params/name__startswith', 'a'); svc.delegate(); }\nexport function onCreate() { svc.delegate(); }\n";
  const server = await appServer(t, { models: { notes: MODEL }, resources: { 'notes.ts': handler } });
  for (const name of ['a1', 'a2', 'a3', 'b1']) await (await send(server.at('/resources/notes'), 'POST', { name })).arrayBuffer();
  const res = await fetch(server.at('/resources/notes?count=2'));
  t.equal(res.headers.get('x-total-count'), '3', 'the handler’s filter applied');
  const link = res.headers.get('link')!;
  t.match(link, /rel="next"/);
  t.notMatch(link, /name__startswith/, 'but is not repeated to the client');
});
