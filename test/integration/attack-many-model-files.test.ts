// Attack: a tenant with thousands of model files, or models that describe gigabytes. What reads every
// model (GET /resources/types, /resources/openapi.json) used to stat, and on a change read and check,
// every file on the event loop that every tenant shares, in one piece and on every request: with
// 10,000 files another tenant's requests were held ~180 ms a time (bench/many-models.ts). Now
// models/ holds at most 1,000 entries, the work comes in slices, a repeated request is answered
// from what was built while the files are as they were, and the documents are bounded.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { MAX_DOCUMENT_BYTES } from '../../src/model/documents.ts';
import { MAX_MODEL_ENTRIES, ModelRegistry } from '../../src/model/registry.ts';
import { runSvc } from '../helpers/process.ts';
import { appServer, makeApp } from '../helpers/server.ts';

const MODEL = JSON.stringify({ fields: { a: { type: 'string' }, b: { type: 'integer' }, c: { type: 'date' } } });

t.test('models/ with more entries than the bound: the documents of every model say so, each collection still serves', async (t) => {
  const server = await appServer(t, { models: { notes: MODEL }, resources: { 'notes.ts': 'svc.delegate();\n' } });
  // Every entry counts, model or not: the directory is never read further than the bound.
  for (let i = 1; i < MAX_MODEL_ENTRIES; i++) writeFileSync(join(server.dir, 'models', `m${i}.json`), MODEL);
  const types = await fetch(server.at('/resources/types'));
  t.equal(types.status, 200, `${MAX_MODEL_ENTRIES} entries: served`);
  t.equal(((await types.json()) as unknown[]).length, MAX_MODEL_ENTRIES);

  writeFileSync(join(server.dir, 'models', 'README.md'), 'one entry too many\n');
  for (const path of ['/resources/types', '/resources/openapi.json']) {
    const res = await fetch(server.at(path));
    t.equal(res.status, 500, path);
    const problem = (await res.json()) as { code: string; detail: string };
    t.equal(problem.code, 'models-over-limit', path);
    t.match(problem.detail, `models/ holds more than ${MAX_MODEL_ENTRIES} entries`, `${path}: the detail says what to fix`);
  }
  t.equal((await fetch(server.at('/resources/notes'))).status, 200, 'a collection reads its own file only, and serves');
  t.equal((await fetch(server.at('/resources/types/m7'))).status, 200, 'and so does the type metadata of one model');
  const { code, out } = await runSvc(['check', '--app', server.dir]);
  t.equal(code, 1, out);
  t.match(out, `models/ holds more than ${MAX_MODEL_ENTRIES} entries`);
  t.notMatch(out, /no model models\//, 'no warning for each handler whose model was not checked');
});

t.test('a first read of many model files lets other requests run meanwhile', async (t) => {
  const app = makeApp({});
  t.teardown(app.cleanup);
  for (let i = 0; i < 500; i++) writeFileSync(join(app.dir, 'models', `m${i}.json`), MODEL);
  const registry = new ModelRegistry(join(app.dir, 'models'), () => {});
  let turns = 0;
  let done = false;
  const count = () => {
    if (done) return;
    turns++;
    setImmediate(count);
  };
  setImmediate(count);
  const { models } = await registry.all();
  done = true;
  t.equal(models.length, 500);
  // 500 files read and checked take well over the 5 ms slice (~40 ms on a 2-core machine).
  t.ok(turns > 1, `other work ran in ${turns} turns of the event loop meanwhile`);
});

t.test('a repeated request is answered from what was built; a change is seen by the next request', async (t) => {
  const app = makeApp({ models: { a: MODEL, b: MODEL } });
  t.teardown(app.cleanup);
  const registry = new ModelRegistry(join(app.dir, 'models'), () => {});
  const first = await registry.typesJson();
  t.equal(await registry.typesJson(), first, 'the same bytes, not built again');
  // Added within the same tick of the file system's clock as the listing before: still seen.
  writeFileSync(join(app.dir, 'models', 'c.json'), MODEL);
  await new Promise((resolve) => setImmediate(resolve));
  const added = JSON.parse((await registry.typesJson()).toString()) as { type: string }[];
  t.same(added.map((m) => m.type), ['a', 'b', 'c']);
  writeFileSync(join(app.dir, 'models', 'c.json'), JSON.stringify({ fields: { z: { type: 'boolean' } } }));
  await new Promise((resolve) => setImmediate(resolve));
  const changed = JSON.parse((await registry.typesJson()).toString()) as { type: string; fields: Record<string, unknown> }[];
  t.ok(changed[2]!.fields.z, 'a changed file is read again');
});

t.test('type metadata and an OpenAPI document over their bound are refused, saying what to fix', async (t) => {
  // 20 models of 1,000 fields with long labels: each file under the 1 MiB a model may have, ~20 MiB
  // of type metadata together (unindexed: a model asks for at most 48 indexes).
  const fields: Record<string, unknown> = {};
  for (let i = 0; i < 1000; i++) fields[`f${i}`] = { type: 'string', index: false, label: 'l'.repeat(450), description: 'd'.repeat(450) };
  const model = JSON.stringify({ fields });
  const models: Record<string, string> = {};
  const resources: Record<string, string> = {};
  for (let i = 0; i < 20; i++) {
    models[`big${i}`] = model;
    resources[`big${i}.ts`] = 'svc.delegate();\n';
  }
  const server = await appServer(t, { models, resources });
  t.ok(20 * model.length > MAX_DOCUMENT_BYTES);
  for (const [path, what] of [['/resources/types', 'type metadata'], ['/resources/openapi.json', 'OpenAPI document']] as const) {
    const res = await fetch(server.at(path));
    t.equal(res.status, 500, path);
    const problem = (await res.json()) as { code: string; detail: string };
    t.equal(problem.code, 'models-over-limit');
    t.match(problem.detail, new RegExp(`${what} of this app.* is over ${MAX_DOCUMENT_BYTES} bytes \\(16 MiB\\)`));
  }
  t.equal((await fetch(server.at('/resources/big3'))).status, 200, 'each collection still serves');
  t.equal((await fetch(server.at('/resources/types/big3'))).status, 200);
});

t.test('a models directory that is missing or not a directory lists no model', async (t) => {
  const app = makeApp({});
  t.teardown(app.cleanup);
  const missing = new ModelRegistry(join(app.dir, 'nothing'), () => {});
  t.same((await missing.all()).models, []);
  mkdirSync(join(app.dir, 'x'));
  writeFileSync(join(app.dir, 'x', 'models'), 'a file');
  t.same((await new ModelRegistry(join(app.dir, 'x', 'models'), () => {}).all()).models, []);
});
