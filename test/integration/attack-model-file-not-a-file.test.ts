// Attack: a model file that is no regular file. A link that leads to itself (ELOOP) made the stat of
// every request that looked for it throw: the collection, GET /resources/types and the OpenAPI
// document were 500 internal-error (the log naming the server's path), for the whole app. A
// directory or a named pipe at models/<name>.json was silently no model (404), where the README says
// it is model-invalid. And `models` itself a file made each collection a 500. Now each is
// model-invalid naming the file and what to do, listed among the problems, and the rest serves.
// A handler script that is a link loop or a named pipe is handler-compile-error (it was a 500
// internal-error, or a 404 as if there were no handler).

import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../helpers/process.ts';
import { appServer } from '../helpers/server.ts';

const MODEL = { fields: { text: { type: 'string' } } };
const DELEGATE = 'svc.delegate();\n';

t.test('a link loop, a directory, a named pipe: model-invalid naming the file; the others serve', async (t) => {
  const server = await appServer(t, {
    models: { notes: MODEL },
    resources: { 'notes.ts': DELEGATE, 'loop.ts': DELEGATE, 'dir.ts': DELEGATE, 'fifo.ts': DELEGATE },
  });
  const models = join(server.dir, 'models');
  symlinkSync('loop.json', join(models, 'loop.json'));
  mkdirSync(join(models, 'dir.json'));
  const fifo = process.platform !== 'win32';
  if (fifo) execFileSync('mkfifo', [join(models, 'fifo.json')]);
  const reasons: Record<string, RegExp> = {
    loop: /^models\/loop\.json is invalid: the file is a link that leads back to itself/,
    dir: /^models\/dir\.json is invalid: the file is not a regular file/,
    ...(fifo ? { fifo: /^models\/fifo\.json is invalid: the file is not a regular file/ } : {}),
  };
  for (const [name, reason] of Object.entries(reasons)) {
    for (const path of [`/resources/${name}`, `/resources/types/${name}`]) {
      const res = await fetch(server.at(path));
      const text = await res.text();
      t.equal(res.status, 500, path);
      const problem = JSON.parse(text) as { code: string; detail: string };
      t.equal(problem.code, 'model-invalid', `${path}: ${problem.detail}`);
      t.match(problem.detail, reason);
      t.notMatch(text, server.dir, 'no host path');
    }
  }
  const types = await fetch(server.at('/resources/types'));
  t.equal(types.status, 200, 'the type metadata of the valid models');
  t.same(((await types.json()) as { type: string }[]).map((m) => m.type), ['notes']);
  const openapi = await fetch(server.at('/resources/openapi.json'));
  t.equal(openapi.status, 200);
  t.same(Object.keys(((await openapi.json()) as { paths: Record<string, unknown> }).paths).filter((p) => !p.includes('types')), ['/resources/notes', '/resources/notes/{id}']);
  t.equal((await fetch(server.at('/resources/notes'))).status, 200);
  const { code, out } = await runSvc(['check', '--app', server.dir]);
  t.equal(code, 1);
  for (const name of Object.keys(reasons)) t.match(out, `models/${name}.json: the file is`, `svc check names ${name}`);
});

t.test('models/ that is a file, or a link loop: no model, and no internal error', async (t) => {
  const server = await appServer(t, { models: { notes: MODEL }, resources: { 'notes.ts': DELEGATE } });
  const models = join(server.dir, 'models');
  rmSync(models, { recursive: true });
  writeFileSync(models, 'not a directory');
  for (const [path, status, code] of [
    ['/resources/notes', 404, 'collection-not-found'],
    ['/resources/types/notes', 404, 'type-not-found'],
  ] as const) {
    const res = await fetch(server.at(path));
    t.equal(res.status, status, path);
    t.equal(((await res.json()) as { code: string }).code, code);
  }
  t.same(await (await fetch(server.at('/resources/types'))).json(), []);
  rmSync(models);
  symlinkSync('models', models);
  const res = await fetch(server.at('/resources/notes'));
  t.equal(res.status, 500);
  t.match(await res.json(), { code: 'model-invalid', detail: /models\/notes\.json is invalid: the file is a link that leads back to itself/ });
  t.same(await (await fetch(server.at('/resources/types'))).json(), [], 'a models/ that cannot be read lists no model');
  rmSync(models);
  mkdirSync(models);
  writeFileSync(join(models, 'notes.tmp'), JSON.stringify(MODEL));
  renameSync(join(models, 'notes.tmp'), join(models, 'notes.json'));
  t.equal((await fetch(server.at('/resources/notes'))).status, 200, 'served again once it is a directory of models');
});

t.test('a handler script that is a link loop or a named pipe does not compile, naming the file', async (t) => {
  const server = await appServer(t, { models: { loop: MODEL, fifo: MODEL, notes: MODEL }, resources: { 'notes.ts': DELEGATE } });
  const resources = join(server.dir, 'resources');
  symlinkSync('loop.ts', join(resources, 'loop.ts'));
  const names = ['loop'];
  if (process.platform !== 'win32') {
    execFileSync('mkfifo', [join(resources, 'fifo.ts')]);
    names.push('fifo');
  }
  for (const name of names) {
    const res = await fetch(server.at(`/resources/${name}`));
    t.equal(res.status, 500, name);
    t.match(await res.json(), { code: 'handler-compile-error' }, name);
  }
  // In development mode the problem says why.
  const dev = await appServer(t, { models: { loop: MODEL }, resources: {} }, { dev: true });
  symlinkSync('loop.ts', join(dev.dir, 'resources', 'loop.ts'));
  const res = await fetch(dev.at('/resources/loop'));
  t.match(await res.json(), { code: 'handler-compile-error', detail: /The handler resources\/loop\.ts is a link that leads back to itself/ });
  t.equal((await fetch(server.at('/resources/openapi.json'))).status, 200);
  t.equal((await fetch(server.at('/resources/notes'))).status, 200);
});
