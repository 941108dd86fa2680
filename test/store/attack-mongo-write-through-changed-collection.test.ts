// The MongoDB store's side of attack-write-through-changed-table. A request that read the model
// before a field's type changed, and writes after another request (or another process on the same
// model file) prepared the collection for the change (a slow body; a handler that awaits a
// `fetch`, then delegates), stored the value of the old type as it was: a 7 in a field made
// boolean, which reads `true` (documents.ts `retyped`) but is not found by `n=true` (MongoDB
// compares the 7 it holds), and stays so until a process next starts and prepares the collection.
// Its filtered reads compared the old type. Such a write is now 503 model-changed (sent again, it
// is read with the model as it is), as is a read that filters or orders by a field the change gave
// another type; a change that only adds or removes fields lets it through, as on SQLite.
//
// On the wire test server (test/mongo-wire/server.ts), whose holds let the change land between a
// request's reading of its model and its write. What it cannot show: a real server running the
// write and the preparation's read of the collection at the same moment (a preparation waits for
// the process's writes under way, which the server runs one at a time here anyway), and across
// processes the window between the check and the write, which only a lock could close.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { ModelRegistry } from '../../src/model/registry.ts';
import type { Model } from '../../src/model/types.ts';
import { collect, filter, ids, query } from './conformance.ts';
import { wireStore } from './wire-store.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

/** An app's models directory holding `x.json`, and its registry: `model()` is `x` as the file is now (read in a later turn, as a request is). */
function app(dir: string): { write(types: Record<string, string>, indexes?: string[][]): void; model(): Promise<Model> } {
  const models = join(dir, 'app', 'models');
  mkdirSync(models, { recursive: true });
  const registry = new ModelRegistry(models, () => {});
  return {
    write: (types, indexes) =>
      writeFileSync(join(models, 'x.json'), JSON.stringify({ fields: Object.fromEntries(Object.entries(types).map(([k, type]) => [k, { type }])), ...(indexes ? { indexes } : {}) })),
    model: async () => {
      await nextTurn();
      return registry.get('x')!;
    },
  };
}

async function setup(t: Test, name: string) {
  const { wire, store, other } = await wireStore(t, name);
  return {
    wire,
    store,
    other,
    stored: () => wire.documents(`svc_${name}`, 'x').map((d) => d.n),
  };
}

t.test('integer → boolean: a create under the integer model, its id taken before the change and its write made after', async (t) => {
  const { wire, store, stored } = await setup(t, 'one');
  const files = app(t.testdir());
  files.write({ n: 'integer' });
  const before = await files.model();
  await store.insert(before, { n: 5 }, stamp(1));

  // The create takes its id; the change lands before it writes.
  const idTaken = wire.hold((c) => c.name === 'findAndModify' && c.collection === 'svc.counters' && c.command.update?.$inc !== undefined, { reply: true });
  const late = store.insert(before, { n: 7 }, stamp(2));
  await idTaken.reached;
  files.write({ n: 'boolean' });
  const after = await files.model();
  await store.insert(after, { n: false }, stamp(3));
  idTaken.release();

  await t.rejects(late, { code: 'model-changed', status: 503 }, 'the late create is told the model changed');
  t.same(stored(), [true, false], 'nothing of the old type stored');
  const listed = await collect(store.list(after, query({})));
  t.same(await ids(store, after, { filters: [filter('n', 'exact', true)] }), listed.filter((m) => m.n === true).map((m) => m.id), 'n=true finds every member that reads true');
});

t.test('integer → boolean: an update and a filtered list under the integer model, after the change', async (t) => {
  const { store, stored } = await setup(t, 'known');
  const files = app(t.testdir());
  files.write({ n: 'integer' });
  const before = await files.model();
  const { id } = await store.insert(before, { n: 5 }, stamp(1));
  files.write({ n: 'boolean' });
  const after = await files.model();
  await store.insert(after, { n: true }, stamp(2));

  await t.rejects(store.replace(before, id, { n: 9 }, stamp(3), stamp(1)), { code: 'model-changed' }, 'an update');
  await t.rejects(collect(store.list(before, query({ filters: [filter('n', 'exact', 5)] }))), { code: 'model-changed' }, 'a list filtered by the field');
  await t.rejects(collect(store.list(before, query({ order: [{ field: 'n', desc: false }] }))), { code: 'model-changed' }, 'a list ordered by it');
  await t.rejects(store.count(before, [filter('n', 'gt', 1)]), { code: 'model-changed' }, 'a filtered count');
  t.same(stored(), [true, true], 'nothing written');
  t.match(await store.get(before, id), { id, n: 1 }, 'a read by id reads the value as the old model would');
  t.ok((await store.delete(before, id)).ok, 'a delete needs no field: it goes ahead');
});

t.test('a field added: a write under the model of before still goes ahead', async (t) => {
  const { store } = await setup(t, 'added');
  const files = app(t.testdir());
  files.write({ n: 'integer' });
  const before = await files.model();
  await store.insert(before, { n: 1 }, stamp(1));
  files.write({ n: 'integer', extra: 'string' });
  const after = await files.model();
  await store.insert(after, { n: 2, extra: 'e' }, stamp(2));
  t.equal((await store.insert(before, { n: 3 }, stamp(3))).n, 3, 'created');
  t.same((await collect(store.list(before, query({ filters: [filter('n', 'gt', 1)] })))).map((m) => m.n), [2, 3], 'a filtered list');
  t.same(await collect(store.list(after, query({}))), [
    { id: 1, updated: stamp(1), n: 1 },
    { id: 2, updated: stamp(2), n: 2, extra: 'e' },
    { id: 3, updated: stamp(3), n: 3 },
  ]);
});

t.test('an index on a day declared, then removed: a write under the model of before stores the parts the collection keeps', async (t) => {
  const { wire, store } = await setup(t, 'parts');
  const files = app(t.testdir());
  files.write({ born: 'date', name: 'string' });
  const before = await files.model();
  const { id } = await store.insert(before, { born: '1990-01-05', name: 'a' }, stamp(1));
  files.write({ born: 'date', name: 'string' }, [['born__day', 'name']]);
  const after = await files.model();
  await store.insert(after, { born: '1990-02-05', name: 'b' }, stamp(2));

  const created = await store.insert(before, { born: '1990-03-05', name: 'c' }, stamp(3));
  t.ok((await store.replace(before, id, { born: '1990-04-05', name: 'a' }, stamp(4), stamp(1))).ok, 'an update goes ahead');
  t.same(wire.documents('svc_parts', 'x').map((d) => d.born__day), ['05', '05', '05'], 'each member keeps the day beside its date');
  t.same(await ids(store, after, { filters: [filter('born', 'day', 5)] }), [id, 2, created.id], 'born__day=5 finds them all');
  t.same(await ids(store, before, { filters: [filter('born', 'day', 5)] }), [id, 2, created.id], 'and so does the model of before, from the dates');

  // The index removed: writes under the model as it is keep no day, which the model of before reads.
  files.write({ born: 'date', name: 'string' });
  const removed = await files.model();
  await store.insert(removed, { born: '1990-05-05', name: 'd' }, stamp(5));
  await t.rejects(collect(store.list(after, query({ filters: [filter('born', 'day', 5)] }))), { code: 'model-changed' }, 'a list under the model with the index, filtered by the day');
  await t.rejects(collect(store.list(after, query({ filters: [filter('born', 'exact', '1990-05-05')] }))), { code: 'model-changed' }, 'or by the field');
  t.equal((await store.insert(after, { born: '1990-06-05', name: 'e' }, stamp(6))).name, 'e', 'a create under it goes ahead');
  t.same(wire.documents('svc_parts', 'x').map((d) => d.born__day), ['05', '05', '05', undefined, undefined], 'the new members keep no day, as the collection’s model does');
  t.same(await ids(store, removed, { filters: [filter('born', 'day', 5)] }), [1, 2, 3, 4, 5]);
});

t.test('two processes on one database and one file: the other prepared the collection for the change', async (t) => {
  const { store: a, other, stored } = await setup(t, 'two');
  const b = await other();
  const files = app(t.testdir());
  files.write({ n: 'integer' });
  const before = await files.model();
  await a.insert(before, { n: 1 }, stamp(1));
  const { id } = await b.insert(before, { n: 2 }, stamp(2));

  files.write({ n: 'boolean' });
  const after = await files.model();
  await a.insert(after, { n: false }, stamp(3));

  // b's requests read the model before the change.
  await t.rejects(b.insert(before, { n: 7 }, stamp(4)), { code: 'model-changed' }, 'a create');
  await t.rejects(b.replace(before, id, { n: 8 }, stamp(5)), { code: 'model-changed' }, 'an update');
  await t.rejects(collect(b.list(before, query({ filters: [filter('n', 'exact', 2)] }))), { code: 'model-changed' }, 'a filtered list');
  t.same(stored(), [true, true, false], 'nothing of the old type stored');
  t.equal((await b.insert(await files.model(), { n: true }, stamp(6))).n, true, 'b, with the model as it is');
  t.same(await ids(a, after, { filters: [filter('n', 'exact', true)] }), [1, 2, 4]);
});
