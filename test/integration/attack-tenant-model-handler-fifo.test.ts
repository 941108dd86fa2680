// Attack: a tenant makes its model file or its handler script a named pipe (FIFO), or a directory.
// README "Tenants": anything but a regular file is not read, and the model is `model-invalid`, the
// handler `handler-compile-error`, each naming the file. Both were taken for no file at all: the
// collection was 404 `collection-not-found`, `svc check` said nothing of the model (it warned that
// the handler beside it had no model), and for the handler it reported a problem that serve never
// showed. The server runs in a process of its own, so that the test can tell a server that stopped
// (opening a FIFO without O_NONBLOCK waits for a writer, on the event loop).

import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { getWithHost } from '../helpers/raw-http.ts';
import { runSvc, spawnServer } from '../helpers/process.ts';
import { makeApp } from '../helpers/server.ts';

if (process.platform === 'win32') {
  t.pass('skipped: no mkfifo on Windows');
  process.exit(0);
}

const model = JSON.stringify({ fields: { text: { type: 'string' } } });
const app = makeApp({
  models: { notes: model, pipedhandler: model, dirhandler: model },
  resources: { 'notes.ts': 'svc.delegate();\n', 'pipedmodel.ts': 'svc.delegate();\n', 'dirmodel.ts': 'svc.delegate();\n' },
});
t.teardown(() => app.cleanup());
execFileSync('mkfifo', [join(app.dir, 'models', 'pipedmodel.json'), join(app.dir, 'resources', 'pipedhandler.ts')]);
mkdirSync(join(app.dir, 'models', 'dirmodel.json'));
mkdirSync(join(app.dir, 'resources', 'dirhandler.ts'));

const server = await spawnServer(['--app', app.dir, '--store', 'sqlite::memory:']);
t.teardown(async () => {
  // SIGKILL: a process stuck in open(2) runs no signal handler.
  server.child.kill('SIGKILL');
  await server.exited;
});
const port = Number(new URL(server.url).port);

/** A GET that fails, rather than waits for ever, when the server has stopped answering. */
function get(path: string): Promise<{ status: number; text: string }> {
  return Promise.race([
    getWithHost(port, 'localhost', path),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer for ${path}: the server stopped`)), 30_000).unref()),
  ]);
}

t.test('a model file that is a FIFO or a directory is model-invalid, naming the file', async (t) => {
  for (const name of ['pipedmodel', 'dirmodel']) {
    const res = await get(`/resources/${name}`);
    t.equal(res.status, 500, name);
    t.match(JSON.parse(res.text), { code: 'model-invalid', detail: new RegExp(`^models/${name}\\.json is invalid: the file is not a regular file`) }, name);
  }
  t.equal((await get('/resources/notes')).status, 200, 'the other collections are served');
});

t.test('a handler script that is a FIFO or a directory is handler-compile-error, naming the file', async (t) => {
  for (const name of ['pipedhandler', 'dirhandler']) {
    const res = await get(`/resources/${name}`);
    t.equal(res.status, 500, name);
    t.match(JSON.parse(res.text), { code: 'handler-compile-error', detail: new RegExp(`resources/${name}\\.ts`) }, name);
  }
  t.equal((await get('/healthz')).status, 200, 'the server goes on serving');
});

t.test('svc check reports each of them as a problem', async (t) => {
  const { code, out } = await runSvc(['check', '--app', app.dir]);
  t.equal(code, 1, out);
  for (const name of ['pipedmodel', 'dirmodel']) {
    t.match(out, new RegExp(`^models/${name}\\.json: the file is not a regular file`, 'm'), name);
    t.notMatch(out, new RegExp(`resources/${name}\\.ts: warning: no model`), `no warning that ${name} has no model`);
  }
  for (const name of ['pipedhandler', 'dirhandler']) t.match(out, new RegExp(`^resources/${name}\\.ts: .*not a regular file`, 'm'), name);
  t.match(out, /svc check: 4 problems/);
});
