// Attack: one app's model files of 1 MiB each (the bound of one file), up to 1,000 of them (the
// bound of models/). A parsed model takes about 1.8 times its file's bytes, and the registry kept
// every model it had read: reading them all (GET /resources/types), or asking for each collection
// once, held 1.8 GB of one app's in the server, past --max-rss (2 GiB by default), which restarts
// the process and every tenant's requests with it. Now what reads every model stops past
// MAX_APP_MODEL_BYTES of model files, and the models the process keeps are bounded by the bytes of
// their files across every app (MAX_KEPT_MODEL_BYTES), the least recently used let go and read
// again when next used.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { KeptModels, MAX_APP_MODEL_BYTES, ModelRegistry } from '../../src/model/registry.ts';
import { makeApp } from '../helpers/server.ts';

/** A model file of about `bytes` bytes: fields whose descriptions fill it. */
function modelOf(bytes: number): string {
  const fields: Record<string, unknown> = {};
  const per = 1000;
  for (let i = 0; i * (per + 60) < bytes; i++) fields[`f${i}`] = { type: 'string', index: false, description: 'd'.repeat(per) };
  return JSON.stringify({ fields });
}

t.test('what reads every model stops past the bytes one app may have', async (t) => {
  const app = makeApp({});
  t.teardown(app.cleanup);
  const big = modelOf(1000 * 1024);
  const n = Math.ceil(MAX_APP_MODEL_BYTES / big.length) + 1;
  for (let i = 0; i < n; i++) writeFileSync(join(app.dir, 'models', `m${String(i).padStart(3, '0')}.json`), big);
  const kept = new KeptModels(1024 * 1024 * 1024);
  const registry = new ModelRegistry(join(app.dir, 'models'), () => {}, kept);
  await t.rejects(registry.all(), { code: 'models-over-limit', message: /model files of models\/ hold more than 33554432 bytes/ });
  t.ok(kept.bytes <= MAX_APP_MODEL_BYTES, `no more was read: ${kept.bytes} bytes of models kept`);
  t.ok(registry.get('m000'), 'each collection still reads its own model');
});

t.test('the models the process keeps are bounded: the least recently used are let go, and read again when used', async (t) => {
  const app = makeApp({});
  t.teardown(app.cleanup);
  const text = modelOf(100 * 1024);
  for (const name of ['a', 'b', 'c', 'd']) writeFileSync(join(app.dir, 'models', `${name}.json`), text);
  // Room for two and a half of them, across two apps' registries (of the same directory here).
  const kept = new KeptModels(Math.floor(text.length * 2.5));
  const one = new ModelRegistry(join(app.dir, 'models'), () => {}, kept);
  const two = new ModelRegistry(join(app.dir, 'models'), () => {}, kept);
  const a = one.get('a')!;
  one.get('b');
  t.equal(one.get('a'), a, 'a model used again is the one kept');
  two.get('c'); // past the bound: the least recently used, b, is let go
  t.equal(kept.bytes, 2 * text.length, 'two kept');
  t.equal(one.get('a'), a, 'a was used more recently than b: still kept');
  const d = two.get('d')!; // c is the least recently used now
  t.ok(kept.bytes <= 2.5 * text.length, `${kept.bytes} bytes kept`);
  t.equal(two.get('d'), d);
  const c = two.get('c')!;
  t.ok(c, 'a model let go is read again when used');
  t.same(c.fields.get('f0'), d.fields.get('f0'), 'as it was');
  t.ok(kept.bytes <= 2.5 * text.length, `${kept.bytes} bytes kept after reading it again`);
  const { models } = await one.all();
  t.equal(models.length, 4, 'all() still reads every model');
  t.ok(kept.bytes <= 2.5 * text.length, `${kept.bytes} bytes kept once it returned`);
});

t.test('a closed app\'s models are let go', async (t) => {
  const app = makeApp({});
  t.teardown(app.cleanup);
  const text = modelOf(10 * 1024);
  writeFileSync(join(app.dir, 'models', 'a.json'), text);
  writeFileSync(join(app.dir, 'models', 'b.json'), text);
  const kept = new KeptModels(1024 * 1024);
  const registry = new ModelRegistry(join(app.dir, 'models'), () => {}, kept);
  await registry.all();
  t.equal(kept.bytes, 2 * text.length);
  registry.close();
  t.equal(kept.bytes, 0, 'none kept');
  t.ok(registry.get('a'), 'and a registry used again reads them again');
});
