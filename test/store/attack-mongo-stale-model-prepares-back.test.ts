// The MongoDB store's side of attack-stale-model-migrates-back. A request holds the model it read
// when it began (server.ts reads it before the body; a handler may await a `fetch` before it
// delegates). When the model file changed meanwhile and another request prepared the collection
// for the new model, the first request's model was an old one the store had not prepared: the
// store prepared the collection back for it, rewriting the values in the old types (a date-time
// made a date lost its time, and was stamped again), recording the old types in svc.counters for
// the next process, dropping the new model's compound indexes and creating the old one's; then,
// holding the old model as the one prepared, it prepared the new one again at the next request.
// The same with a preparation under way when the file changed: it went on after another request
// (of the process, or of another process on the same file) had prepared for the new model, and
// undid it. A store prepares a collection only for a model that is its file as it is now, checked
// before each step that changes the collection; otherwise 503 model-changed, as on SQLite.
//
// On the wire test server (test/mongo-wire/server.ts), which runs one command at a time: the
// holds order the two preparations' commands as a real server might; what it cannot show is how a
// real server interleaves two commands that run at the same moment (each rewrite is conditional
// on the value it replaces, which a real server evaluates atomically per document).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import t, { type Test } from 'tap';
import { ModelRegistry } from '../../src/model/registry.ts';
import type { Model } from '../../src/model/types.ts';
import { COUNTERS } from '../../src/store/mongodb/mongodb-store.ts';
import type { MongoWireServer } from '../mongo-wire/server.ts';
import { collect, filter, query } from './conformance.ts';
import { wireStore } from './wire-store.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

/** An app's models directory holding `x.json`, and its registry: `model()` is `x` as the file is now (read in a later turn, as a request is). */
function app(dir: string): { write(model: object): void; model(): Promise<Model> } {
  const models = join(dir, 'app', 'models');
  mkdirSync(models, { recursive: true });
  const registry = new ModelRegistry(models, () => {});
  return {
    write: (model) => writeFileSync(join(models, 'x.json'), JSON.stringify(model)),
    model: async () => {
      await nextTurn();
      return registry.get('x')!;
    },
  };
}

const fields = (types: Record<string, string>) => ({ fields: Object.fromEntries(Object.entries(types).map(([k, type]) => [k, { type }])) });

/** The wire server, a store on it (database `svc_<name>`), and what the database holds. */
async function setup(t: Test, name: string) {
  const { wire, store, other } = await wireStore(t, name);
  const admin = new MongoClient(wire.uri);
  t.teardown(() => admin.close());
  const db = admin.db(`svc_${name}`);
  return {
    wire,
    store,
    other,
    docs: () => wire.documents(`svc_${name}`, 'x').map((d) => [d._id, d.at, d.updated]),
    types: async () => (await db.collection(COUNTERS).findOne({ _id: 'x' as never }))?.types,
    indexes: async () => (await db.collection('x').listIndexes().toArray()).map((i) => String(i.name)).sort(),
  };
}

/** Holds the next find of collection x: the first read of a preparation's rewrite (#retype). */
const holdRewriteRead = (wire: MongoWireServer) => wire.hold((c) => c.name === 'find' && c.collection === 'x');

t.test('a model read before a change, used after the change prepared the collection, prepares nothing back', async (t) => {
  const { store, docs, types, indexes } = await setup(t, 'late');
  const files = app(t.testdir());
  files.write(fields({ at: 'date' }));
  await store.insert(await files.model(), { at: '2025-01-01' }, stamp(1));

  // A request reads the model (the file's next version), and is slow to reach the store.
  files.write({ ...fields({ at: 'date', note: 'string' }), indexes: [['note', 'at']] });
  const stale = await files.model();
  // Meanwhile the file changes again, and another request's write prepares the collection for it.
  files.write({ ...fields({ at: 'date-time', note: 'string' }), indexes: [['at', 'note']] });
  const current = await files.model();
  const written = await store.insert(current, { at: '2025-02-03T04:05:06.789Z' }, stamp(2));
  const prepared = { types: await types(), indexes: await indexes() };
  t.same(prepared.indexes, ['_id_', 'at_1__id_1', 'note_1__id_1', 'svc+at,note', 'updated_-1__id_1', 'updated_1__id_1']);

  await t.rejects(store.insert(stale, { at: '2025-03-01', note: 'late' }, stamp(3)), { code: 'model-changed', status: 503 }, 'a late create is told the model changed');
  await t.rejects(collect(store.list(stale, query({}))), { code: 'model-changed' }, 'so is a late list');
  t.same(docs(), [[1, '2025-01-01T00:00:00.000Z', stamp(1)], [2, '2025-02-03T04:05:06.789Z', stamp(2)]], 'the date-times keep their times and stamps; nothing written');
  t.same(await types(), prepared.types, 'the types recorded for the next process are the model’s as it is');
  t.same(await indexes(), prepared.indexes, 'its indexes are kept');

  const now = await files.model();
  t.equal(now, current, 'the file is unchanged: the same model');
  t.same((await store.get(now, written.id))?.at, '2025-02-03T04:05:06.789Z', 'the date-time written under the model as it is keeps its time');
  const listed = await collect(store.list(now, query({ filters: [filter('at', 'gte', '2025-02-01T00:00:00.000Z')] })));
  t.same(listed.map((m) => m.at), ['2025-02-03T04:05:06.789Z'], 'a filtered list under the model as it is');
});

t.test('a preparation under way when the file changes stops before it changes the collection again', async (t) => {
  const { wire, store, docs, types } = await setup(t, 'underway');
  const files = app(t.testdir());
  files.write(fields({ at: 'date-time' }));
  await store.insert(await files.model(), { at: '2025-01-01T10:00:00.000Z' }, stamp(1));

  files.write(fields({ at: 'date' }));
  const older = await files.model();
  const held = holdRewriteRead(wire);
  const preparing = store.ensure(older);
  await held.reached;
  // The preparation for `older` has read its file and begun; the file changes (back) before it rewrites.
  files.write(fields({ at: 'date-time', note: 'string' }));
  const current = await files.model();
  const writing = store.insert(current, { at: '2025-02-03T04:05:06.789Z' }, stamp(2));
  held.release();
  const [first, second] = await Promise.allSettled([preparing, writing]);

  t.match(first, { status: 'rejected', reason: { code: 'model-changed' } }, 'the preparation of the model of before is told the model changed');
  t.match(second, { status: 'fulfilled' }, 'the write under the model as it is goes ahead');
  t.same(docs(), [[1, '2025-01-01T10:00:00.000Z', stamp(1)], [2, '2025-02-03T04:05:06.789Z', stamp(2)]], 'the date-time keeps its time and stamp');
  t.same(await types(), { at: 'date-time', note: 'string' }, 'recorded: the types of the file as it is');
  t.same((await collect(store.list(current, query({ filters: [filter('at', 'lt', '2025-01-01T12:00:00.000Z')] })))).map((m) => m.id), [1]);
});

t.test('two processes on one database and one file: the one whose model is of before does not undo the other’s preparation', async (t) => {
  const { wire, store: a, other, docs, types } = await setup(t, 'two');
  const b = await other();
  const files = app(t.testdir());
  files.write(fields({ at: 'date-time' }));
  await a.insert(await files.model(), { at: '2025-01-01T10:00:00.000Z' }, stamp(1));

  // b's request read the next version, and began preparing for it.
  files.write(fields({ at: 'date' }));
  const older = await files.model();
  const held = holdRewriteRead(wire);
  const preparing = b.ensure(older);
  await held.reached;
  // The file changes again; a prepares for it and writes, all before b's preparation goes on.
  files.write(fields({ at: 'date-time', note: 'string' }));
  const current = await files.model();
  await a.insert(current, { at: '2025-02-03T04:05:06.789Z', note: 'a' }, stamp(2));
  held.release();

  await t.rejects(preparing, { code: 'model-changed' }, 'b is told the model changed');
  t.same(docs(), [[1, '2025-01-01T10:00:00.000Z', stamp(1)], [2, '2025-02-03T04:05:06.789Z', stamp(2)]], 'both date-times keep their times and stamps');
  t.same(await types(), { at: 'date-time', note: 'string' }, 'recorded: the types of the file as it is');
  t.equal((await b.insert(await files.model(), { at: '2025-03-01T00:00:00.000Z' }, stamp(3))).id, 3, 'b, with the model as it is');
  await t.rejects(b.ensure(older), { code: 'model-changed' }, 'and b’s model of before, again');
});
