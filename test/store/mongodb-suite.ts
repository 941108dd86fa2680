// What the MongoDB store must do on a MongoDB server (or the wire test server): the conformance suite,
// then what only MongoDB has. `runMongoSuite(t, 'mongodb://…')` runs it on any server.

import { Decimal128, Double, Long, MongoClient, type CommandStartedEvent } from 'mongodb';
import type { Test } from 'tap';
import { acquireClient, databaseName } from '../../src/store/mongodb/connection.ts';
import { COUNTERS } from '../../src/store/mongodb/mongodb-store.ts';
import { openStore } from '../../src/store/open.ts';
import type { Model } from '../../src/model/types.ts';
import { indexDef, makeModel } from '../fixtures/models.ts';
import { collect, filter, order, query, runStoreSuiteOn, type StoreSuiteOptions } from './conformance.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

export function runMongoSuite(t: Test, uri: string, options: Pick<StoreSuiteOptions, 'knownGaps'> = {}): void {
  const admin = new MongoClient(uri);
  t.teardown(() => admin.close());
  const run = `m${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
  let n = 0;
  /** A store on a database of its own, and that database's name. */
  const fresh = async (t: { teardown(fn: () => unknown): void }, storeUri = uri) => {
    const name = `${run}-${++n}`;
    const store = await openStore(storeUri, name);
    const db = databaseName(uri, name);
    t.teardown(async () => {
      await store.close();
      await admin.db(db).dropDatabase().catch(() => {});
    });
    return { store, db: admin.db(db) };
  };

  t.test('conformance', async (t) => runStoreSuiteOn(t, uri, options));

  t.test('a tenant\'s members are in its own database, one collection per model', async (t) => {
    const { store, db } = await fresh(t);
    const model = makeModel('notes', { text: 'text', _id: 'string' });
    await store.insert(model, { text: 'x', _id: 'y' }, stamp(1));
    t.strictSame(await db.collection('notes').find().toArray(), [{ _id: 1, updated: stamp(1), text: 'x', __id: 'y' }]);
    const [counter, ...others] = await db.collection(COUNTERS).find().toArray();
    t.same(others, []);
    const { declared, ...rest } = counter!;
    t.strictSame(rest, { _id: 'notes', seq: 1, types: { text: 'text', __id: 'string' }, canonicalDates: true }, 'the id counter, and the types the fields were last prepared with');
    t.same(Object.keys(declared), ['text', '__id'], 'and when a process last prepared the collection for a model declaring each');
    t.ok(Object.values(declared).every((d) => d instanceof Date), 'in the database\'s time');
  });

  t.test('ensure creates an index per declared field and on updated, each with _id', async (t) => {
    const { store, db } = await fresh(t);
    await store.ensure(makeModel('people', { name: 'string', age: 'integer', _id: 'string' }));
    const keys = (await db.collection('people').listIndexes().toArray()).map((i) => i.key);
    for (const key of [{ updated: 1, _id: 1 }, { updated: -1, _id: 1 }, { name: 1, _id: 1 }, { age: 1, _id: 1 }, { __id: 1, _id: 1 }]) {
      t.ok(keys.some((k) => JSON.stringify(k) === JSON.stringify(key)), `index ${JSON.stringify(key)}`);
    }
  });

  t.test('a field declared "index": false has no index, and one that had it loses it', async (t) => {
    const { store, db } = await fresh(t);
    const names = async () => (await db.collection('people').listIndexes().toArray()).map((i) => i.name).sort();
    await store.ensure(makeModel('people', { name: 'string', age: 'integer' }));
    t.same(await names(), ['_id_', 'age_1__id_1', 'name_1__id_1', 'updated_-1__id_1', 'updated_1__id_1']);
    const unindexed = makeModel('people', { name: 'string', age: { type: 'integer', index: false } });
    await store.ensure(unindexed);
    t.same(await names(), ['_id_', 'name_1__id_1', 'updated_-1__id_1', 'updated_1__id_1']);
    await store.insert(unindexed, { name: 'a', age: 3 }, stamp(1));
    t.same((await collect(store.list(unindexed, query({ filters: [filter('age', 'exact', 3)] })))).map((m) => m.id), [1], 'filters still work');
    await store.ensure(makeModel('people', { name: 'string', age: 'integer' }));
    t.same(await names(), ['_id_', 'age_1__id_1', 'name_1__id_1', 'updated_-1__id_1', 'updated_1__id_1'], 'indexed again');
  });

  t.test('declared compound indexes are created, and dropped when no longer declared', async (t) => {
    const { store, db } = await fresh(t);
    const names = async () => (await db.collection('people').listIndexes().toArray()).map((i) => i.name).sort();
    const fields = { name: 'string', born: 'date', level: { type: 'integer', index: false } } as const;
    const indexed = makeModel('people', fields, { indexes: [indexDef('born__day', 'level', 'name'), indexDef('level', 'name'), indexDef('born__day', 'name')] });
    await store.ensure(indexed);
    t.same(await names(), ['_id_', 'born_1__id_1', 'name_1__id_1', 'svc+born__day,level,name', 'svc+born__day,name', 'svc+level,name', 'updated_-1__id_1', 'updated_1__id_1']);
    await store.insert(indexed, { name: 'a', born: '1990-01-05', level: 2 }, stamp(1));
    const q = query({ filters: [filter('born', 'day', 5), filter('name', 'startswith', 'a')], order: order('name') });
    t.same((await collect(store.list(indexed, q))).map((m) => m.id), [1], 'filters read the same');
    await store.ensure(makeModel('people', fields, { indexes: [indexDef('level', 'name')] }));
    t.same(await names(), ['_id_', 'born_1__id_1', 'name_1__id_1', 'svc+level,name', 'updated_-1__id_1', 'updated_1__id_1'], 'the undeclared ones dropped');
    // A field's own index turned off and a one-key index declared on it: the same keys under
    // another name, which replaces it (dropped first, or MongoDB refuses it).
    await store.ensure(makeModel('people', { ...fields, born: { type: 'date', index: false } }, { indexes: [indexDef('born')] }));
    t.same(await names(), ['_id_', 'name_1__id_1', 'svc+born', 'updated_-1__id_1', 'updated_1__id_1']);
    await store.ensure(makeModel('people', fields, { indexes: [indexDef('born')] }));
    t.same(await names(), ['_id_', 'born_1__id_1', 'name_1__id_1', 'updated_-1__id_1', 'updated_1__id_1'], "the field's own index again, the declared one left to it");
  });

  t.test('a part an index names is stored in every member, kept true through writes, and read from the index', async (t) => {
    const { store, db } = await fresh(t);
    const people = db.collection('people');
    const fields = { name: 'string', born: 'date' } as const;
    const plain = makeModel('people', fields);
    await store.insert(plain, { name: 'a', born: '1990-01-05' }, stamp(1));
    await store.insert(plain, { name: 'b', born: '1990-02-15' }, stamp(2));
    await store.insert(plain, { name: 'c' }, stamp(3));
    // As an earlier version made it: the part left out of the index's keys.
    await people.createIndex({ born: 1, name: 1, _id: 1 }, { name: 'svc+born__day,born,name' });
    const parts = async () => (await people.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d.born__day ?? null);
    const dayIds = async (model: Model, day: number) => (await collect(store.list(model, query({ filters: [filter('born', 'day', day)] })))).map((m) => m.id);
    const indexed = () => makeModel('people', fields, { indexes: [indexDef('born__day', 'born', 'name')] });

    const v1 = indexed();
    t.same(await dayIds(v1, 5), [1], 'read from the part');
    t.same(await parts(), ['05', '15', null], 'filled in for the members written before');
    t.same((await people.listIndexes().toArray()).find((i) => i.name === 'svc+born__day,born,name')?.key, { born__day: 1, born: 1, name: 1, _id: 1 }, 'the index made again with its part');
    await store.insert(v1, { name: 'd', born: '2000-03-05' }, stamp(4));
    t.same(await dayIds(v1, 5), [1, 4]);
    t.equal(await store.count(v1, [filter('born', 'day', 5)]), 2);

    // Written under a model that stores no part: the part goes, so it is filled in again, true, when an index names it again.
    await store.replace(plain, 1, { name: 'a', born: '1990-01-20' }, stamp(5));
    await store.replace(makeModel('people', { name: 'string', born: 'string' }), 4, { name: 'd', born: '2000-03-07' }, stamp(6));
    t.same(await parts(), [null, '15', null, null]);
    const v2 = indexed();
    t.same(await dayIds(v2, 5), []);
    t.same(await dayIds(v2, 20), [1]);
    t.same(await dayIds(v2, 7), [4]);
    t.same(await parts(), ['20', '15', null, '07']);
    t.same(await store.get(v2, 1), { id: 1, updated: stamp(5), name: 'a', born: '1990-01-20' }, 'a member shows no part');

    // A type change takes the parts with the old values.
    await store.ensure(makeModel('people', { name: 'string', born: 'integer' }));
    t.same(await parts(), [null, null, null, null]);
  });

  t.test('a lost counter catches up with the collection: ids are never reused', async (t) => {
    const { store, db } = await fresh(t);
    const model = makeModel('notes', { text: 'text' });
    for (let i = 1; i <= 3; i++) await store.insert(model, { text: `${i}` }, stamp(i));
    await db.collection(COUNTERS).deleteMany({});
    t.equal((await store.insert(model, { text: '4' }, stamp(4))).id, 4);
    t.equal((await store.insert(model, { text: '5' }, stamp(5))).id, 5);
    t.equal(await store.count(model, []), 5);
  });

  t.test('fractions in a field made integer are rewritten when the types last recorded say it was not integer', async (t) => {
    const name = `${run}-${++n}`;
    const dbName = databaseName(uri, name);
    const stores: Awaited<ReturnType<typeof openStore>>[] = [];
    /** A new svc process on the database (a client of its own), `type` its model's type of `n`. */
    const processOn = async (type: 'float' | 'integer') => {
      const store = await openStore(uri + (uri.includes('?') ? '&' : '?') + `appName=p${stores.length}`, name);
      stores.push(store);
      const model = makeModel('notes', { n: type });
      await store.ensure(model);
      return { store, model };
    };
    t.teardown(async () => {
      for (const store of stores) await store.close();
      await admin.db(dbName).dropDatabase().catch(() => {});
    });
    const stored = async () => (await admin.db(dbName).collection('notes').find({}, { sort: { _id: 1 } }).toArray()).map((d) => d.n);
    const old = await processOn('float');
    await old.store.insert(old.model, { n: 1.5 }, stamp(1));
    const types = async () => (await admin.db(dbName).collection(COUNTERS).findOne({ _id: 'notes' as never }))?.types;
    t.same(await types(), { n: 'float' }, 'the types are recorded');

    const now = await processOn('integer');
    t.same(await stored(), [2], 'a process with the field integer rewrites the fraction');
    t.same(await types(), { n: 'integer' });

    // A process still on the old model writes a fraction afterwards: a new process finds integer
    // recorded and does not read every member for it (it reads rounded, compares as stored).
    await old.store.insert(old.model, { n: 3.5 }, stamp(2));
    const later = await processOn('integer');
    t.same(await stored(), [2, 3.5], 'not looked for: integer was recorded');
    const read = await collect(later.store.list(later.model, query()));
    t.same(read.map(({ id, n }) => ({ id, n })), [{ id: 1, n: 2 }, { id: 2, n: 4 }], 'read rounded');
    t.ok(read[0]!.updated > stamp(1), 'the fraction rewritten (1.5 is 2 now) is stamped again');
    t.equal(read[1]!.updated, stamp(2), 'the one left as stored keeps its stamp');
    t.same(await now.store.count(now.model, [filter('n', 'exact', 4)]), 0, 'compared as stored');

    // Once a process on the old model prepares again (a restart), the next one on the new finds it.
    await processOn('float');
    await processOn('integer');
    t.same(await stored(), [2, 4]);
    t.same(await later.store.count(later.model, [filter('n', 'exact', 4)]), 1);
  });

  t.test('NaN and -0 in a field made integer: read as filters find them', async (t) => {
    const { store, db } = await fresh(t);
    await store.ensure(makeModel('odd', { v: 'float' }));
    await db.collection('odd').insertMany([
      { _id: 1, updated: stamp(1), v: new Double(NaN) },
      { _id: 2, updated: stamp(1), v: new Double(-0) },
      { _id: 3, updated: stamp(1), v: 1.5 },
    ] as never);
    const integers = makeModel('odd', { v: 'integer' });
    const listed = await collect(store.list(integers, query()));
    t.same(listed.map((m) => m.v), [undefined, 0, 2]);
    t.notOk(listed.some((m) => Object.is(m.v, -0)), 'no -0');
    t.same((await collect(store.list(integers, query({ filters: [filter('v', 'isnull', true)] })))).map((m) => m.id), [1]);
    t.same((await collect(store.list(integers, query({ filters: [filter('v', 'exact', 0)] })))).map((m) => m.id), [2]);
  });

  const bsonGap = options.knownGaps?.bsonNumberTypes;
  t.test('longs and decimals (svc writes neither) in a field made integer: read as filters find them', bsonGap ? { todo: bsonGap } : {}, async (t) => {
    const { store, db } = await fresh(t);
    await store.ensure(makeModel('odd', { v: 'float' }));
    await db.collection('odd').insertMany([
      { _id: 1, updated: stamp(1), v: Decimal128.fromString('1.5') },
      { _id: 2, updated: stamp(1), v: Long.fromString('1152921504606846976') },
      { _id: 3, updated: stamp(1), v: 2 },
    ] as never);
    const integers = makeModel('odd', { v: 'integer' });
    t.same((await collect(store.list(integers, query()))).map((m) => m.v), [2, undefined, 2]);
    t.same((await collect(store.list(integers, query({ filters: [filter('v', 'exact', 2)] })))).map((m) => m.id), [1, 3]);
    t.same((await collect(store.list(integers, query({ filters: [filter('v', 'isnull', true)] })))).map((m) => m.id), [2]);
  });

  t.test('two processes on one database take distinct ids', async (t) => {
    const name = `${run}-${++n}`;
    // Different URIs: different clients, as two svc processes would have.
    const one = await openStore(uri, name);
    const two = await openStore(uri + (uri.includes('?') ? '&' : '?') + 'appName=second', name);
    t.teardown(async () => {
      await one.close();
      await two.close();
      await admin.db(databaseName(uri, name)).dropDatabase().catch(() => {});
    });
    const model = makeModel('notes', { n: 'integer' });
    const created = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).insert(model, { n: i }, stamp(i))));
    t.same(created.map((m) => m.id).sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1));
  });

  t.test('every list runs filter, sort, skip and limit in the server', async (t) => {
    const monitored = uri + (uri.includes('?') ? '&' : '?') + 'monitorCommands=true';
    const { store } = await fresh(t, monitored);
    const shared = acquireClient(monitored, {});
    t.teardown(shared.release);
    const seen: CommandStartedEvent[] = [];
    const listen = (e: CommandStartedEvent) => seen.push(e);
    shared.client.on('commandStarted', listen);
    t.teardown(() => void shared.client.off('commandStarted', listen));
    const model = makeModel('notes', { n: 'integer' });
    for (let i = 0; i < 30; i++) await store.insert(model, { n: i % 7 }, stamp(i));
    seen.length = 0;
    const page = await collect(store.list(model, query({ filters: [filter('n', 'gte', 3)], order: order('-n'), start: 2, count: 5 })));
    t.same(page.map((m) => m.n), [6, 6, 5, 5, 5]);
    const finds = seen.filter((e) => e.commandName === 'find');
    t.equal(finds.length, 1, 'one find');
    const { command } = finds[0]!;
    t.match(command, { find: 'notes', filter: { n: { $gte: 3 } }, skip: 2, limit: 5 });
    t.same([...(command.sort instanceof Map ? command.sort : Object.entries(command.sort))], [['n', -1], ['_id', 1]], 'sorted by n descending, ties by _id');
    t.notOk(seen.some((e) => e.commandName === 'getMore'), 'a page comes in one batch');
    t.equal(command.maxTimeMS, 5000, 'the server stops a find past the store time of a query (README "Storage")');
    seen.length = 0;
    await collect(store.list(model, query({ filters: [filter('n', 'gte', 3)] }), { timeMs: 250.4 }));
    t.equal(seen.find((e) => e.commandName === 'find')?.command.maxTimeMS, 251, 'a model-API call passes what is left of its budget');
    seen.length = 0;
    t.equal(await store.count(model, [filter('n', 'lt', 2)]), 10);
    const counted = seen.find((e) => e.commandName === 'aggregate' && JSON.stringify(e.command.pipeline[0]) === JSON.stringify({ $match: { n: { $lt: 2 } } }));
    t.ok(counted, 'a filtered count is countDocuments');
    t.equal(counted?.command.maxTimeMS, 5000, 'bounded in time too');
    seen.length = 0;
    t.equal(await store.count(model, []), 30);
    t.ok(seen.some((e) => e.commandName === 'count' && e.command.query === undefined), 'an unfiltered count is estimatedDocumentCount');
  });
}
