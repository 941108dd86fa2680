// A request that read the model before a field's type changed, and writes after the change
// migrated the table (a slow body; a handler that awaits a `fetch`, then delegates), wrote through
// the store's description of the table from before the change. A field whose column the change
// moved (text ↔ numbers) failed: 500 internal-error "table x has no column named n", as did a
// filtered read. A field whose column stayed (integer → boolean) took the old type's value as it
// was: a 7 in a boolean field, read as true by id and in lists, but not found by `n=true`, which
// compares 1. Such a request is now 503 model-changed (sent again, it is read with the new model);
// a change that only adds or removes fields leaves such a write as it was (its columns are there).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import t from 'tap';
import { ModelRegistry } from '../../src/model/registry.ts';
import type { Model } from '../../src/model/types.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../fixtures/models.ts';
import { keepWriterThread } from '../helpers/writer-thread.ts';
import { collect, filter, ids, query } from './conformance.ts';

// The file stores of every subtest share one writer thread instead of starting one each (test/helpers/writer-thread.ts).
const writer = await keepWriterThread();
t.teardown(() => writer.close());

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

t.test('integer → boolean: a write under the integer model after the change', async (t) => {
  const store = await openSqliteStore(`sqlite:${join(t.testdir(), 'x.sqlite')}`, '');
  t.teardown(() => store.close());
  const before = makeModel('x', { n: 'integer' });
  const { id } = await store.insert(before, { n: 5 }, stamp(1));
  const after = makeModel('x', { n: 'boolean' });
  await store.insert(after, { n: true }, stamp(2));

  await t.rejects(store.insert(before, { n: 7 }, stamp(3)), { code: 'model-changed', status: 503 }, 'a create under the old model');
  await t.rejects(store.replace(before, id, { n: 9 }, stamp(4)), { code: 'model-changed' }, 'an update under the old model');
  const listed = await collect(store.list(after, query({})));
  t.same(listed.map((m) => m.n), [true, true], 'nothing was written');
  t.same(await ids(store, after, { filters: [filter('n', 'exact', true)] }), listed.filter((m) => m.n === true).map((m) => m.id), 'n=true finds every member that reads true');
  t.ok((await store.delete(before, id)).ok, 'a delete needs no field: it goes ahead');
});

t.test('string → integer (the column moves): writes and filtered reads under the string model', async (t) => {
  const store = await openSqliteStore(`sqlite:${join(t.testdir(), 'x.sqlite')}`, '');
  t.teardown(() => store.close());
  const before = makeModel('x', { n: 'string' });
  const { id } = await store.insert(before, { n: '12' }, stamp(1));
  const after = makeModel('x', { n: 'integer' });
  await store.insert(after, { n: 3 }, stamp(2));

  await t.rejects(store.insert(before, { n: '7' }, stamp(3)), { code: 'model-changed' }, 'a create: not 500 "no column named n"');
  await t.rejects(store.replace(before, id, { n: '8' }, stamp(4)), { code: 'model-changed' }, 'an update');
  await t.rejects(collect(store.list(before, query({ filters: [filter('n', 'exact', '12')] }))), { code: 'model-changed' }, 'a filtered list: not 500 "no such column"');
  t.same((await collect(store.list(after, query({})))).map((m) => m.n), [12, 3], 'the table as the change left it');
});

t.test('a field added: a write under the model of before still goes ahead', async (t) => {
  const store = await openSqliteStore(`sqlite:${join(t.testdir(), 'x.sqlite')}`, '');
  t.teardown(() => store.close());
  const before = makeModel('x', { n: 'integer' });
  await store.insert(before, { n: 1 }, stamp(1));
  const after = makeModel('x', { n: 'integer', extra: 'string' });
  await store.insert(after, { n: 2, extra: 'e' }, stamp(2));
  t.equal((await store.insert(before, { n: 3 }, stamp(3))).n, 3, 'created');
  t.same(await collect(store.list(after, query({}))), [
    { id: 1, updated: stamp(1), n: 1 },
    { id: 2, updated: stamp(2), n: 2, extra: 'e' },
    { id: 3, updated: stamp(3), n: 3 },
  ]);
});

t.test('two stores on one file (two processes): the other migrated the table', async (t) => {
  const dir = t.testdir();
  const models = join(dir, 'app', 'models');
  mkdirSync(models, { recursive: true });
  const registry = new ModelRegistry(models, () => {});
  const write = (type: string) => writeFileSync(join(models, 'x.json'), JSON.stringify({ fields: { n: { type } } }));
  const model = async (): Promise<Model> => {
    await nextTurn(); // a request of a later turn: it sees the file as it is
    return registry.get('x')!;
  };
  const path = `sqlite:${join(dir, 'x.sqlite')}`;
  const a = await openSqliteStore(path, '');
  t.teardown(() => a.close());
  const b = await openSqliteStore(path, '');
  t.teardown(() => b.close());
  write('string');
  const before = await model();
  await a.insert(before, { n: '1' }, stamp(1));
  const { id } = await b.insert(before, { n: '2' }, stamp(2));

  write('integer');
  const after = await model();
  await a.insert(after, { n: 3 }, stamp(3));

  // b's request read the model before the change.
  await t.rejects(b.insert(before, { n: '4' }, stamp(4)), { code: 'model-changed' }, 'a create: not 500 "no column named n"');
  await t.rejects(b.replace(before, id, { n: '5' }, stamp(5)), { code: 'model-changed' }, 'an update');
  await t.rejects(collect(b.list(before, query({ filters: [filter('n', 'exact', '1')] }))), { code: 'model-changed' }, 'a filtered list');
  await t.rejects(b.count(before, [filter('n', 'exact', '1')]), { code: 'model-changed' }, 'a filtered count');
  await t.rejects(collect(b.list(before, query({ filters: [filter('n', 'contains', '1')] }))), { code: 'model-changed' }, 'a list that scans (in a reader thread)');
  t.equal((await b.insert(await model(), { n: 6 }, stamp(6))).n, 6, 'b, with the model as it is');
  t.same((await collect(a.list(after, query({})))).map((m) => m.n), [1, 2, 3, 6]);
});
