// A database where a field was made date or date-time by an svc before canonical dates (c241f37):
// that svc kept the stored text as it was ("nothing is rewritten") and recorded the field's type
// as date (SQLite svc_fields.type, MongoDB svc.counters). This svc reads such text in canonical
// form (README "Models": `"2024-05-01T23:30:00-05:00"` as `"2024-05-02"`, `"abc"` absent), but
// looked for text to rewrite only when the recorded type is another: after the upgrade the text
// stayed as stored, so filters compared it as text (`v=2024-05-02` missed the member that reads
// so, `v__isnull=true` the one that reads absent), and its `updated`, and so its ETag, stayed
// while its value changed (the older svc served the text as stored). Each state below is the one
// the older svc left (checked against it: the rows and the recorded types it wrote).

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { MongoClient } from 'mongodb';
import t, { type Test } from 'tap';
import type { Model } from '../../src/model/types.ts';
import { databaseName } from '../../src/store/mongodb/connection.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';
import { collect, filter, ids, query } from './conformance.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();
const TEXTS = ['2024-05-01', '2024-05-01T23:30:00-05:00', 'abc'];

/** As the older svc left it: text written to a string field, and the field's type recorded as `type`. */
async function writeTexts(store: Store): Promise<void> {
  const s = makeModel('m', { v: 'string' });
  for (const [i, v] of TEXTS.entries()) await store.insert(s, { v }, stamp(i + 1));
}

async function upgraded(t: Test, store: Store, model: Model, expected: (string | undefined)[]): Promise<void> {
  const listed = await collect(store.list(model, query({})));
  t.same(listed.map((m) => m.v), expected, 'read in canonical form');
  for (const [i, v] of expected.entries()) {
    if (v === undefined) continue;
    t.same(await ids(store, model, { filters: [filter('v', 'exact', v)] }), expected.flatMap((w, j) => (w === v ? [j + 1] : [])), `v=${v} finds the members that read it`);
  }
  t.same(await ids(store, model, { filters: [filter('v', 'isnull', true)] }), [3], 'isnull finds the member that reads absent');
  t.equal(listed[0]!.updated, stamp(1), 'a value read as it was served keeps its updated');
  t.not(listed[1]!.updated, stamp(2), 'a value that reads otherwise than the older svc served it gets a new updated');
  t.not(listed[2]!.updated, stamp(3), 'so does one that is now absent');
}

/** After the upgrade: as `upgraded` for a date; for a date-time, every value read otherwise than it was served is stamped again. */
async function readsAfterUpgrade(t: Test, store: Store, type: 'date' | 'date-time', model: Model, values: (string | undefined)[]): Promise<void> {
  if (type === 'date') return upgraded(t, store, model, values);
  const listed = await collect(store.list(model, query({})));
  t.same(listed.map((m) => m.v), values);
  t.same(await ids(store, model, { filters: [filter('v', 'exact', values[1]!)] }), [2]);
  t.same(await ids(store, model, { filters: [filter('v', 'isnull', true)] }), [3]);
  t.not(listed[0]!.updated, stamp(1), 'the date served as "2024-05-01" reads as its midnight now: a new updated');
  t.not(listed[1]!.updated, stamp(2));
}

for (const [type, expected] of [
  ['date', ['2024-05-01', '2024-05-02', undefined]],
  ['date-time', ['2024-05-01T00:00:00.000Z', '2024-05-02T04:30:00.000Z', undefined]],
] as const) {
  const model = makeModel('m', { v: type });
  // A date read as a date is the text the older svc served; as a date-time it is not.
  const values = [...expected];

  t.test(`SQLite: a field made ${type} by an older svc`, async (t) => {
    const path = join(t.testdir(), 'store.sqlite');
    const before = await openStore(`sqlite:${path}`, '');
    await writeTexts(before);
    await before.close();
    const db = new DatabaseSync(path);
    db.exec(`UPDATE svc_fields SET type = '${type}'`);
    db.exec('PRAGMA user_version = 2');
    db.close();
    const store = await openStore(`sqlite:${path}`, '');
    t.teardown(() => store.close());
    await readsAfterUpgrade(t, store, type, model, values);
  });

  t.test(`MongoDB: a field made ${type} by an older svc`, async (t) => {
    const wire = await startMongoWireServer();
    t.teardown(() => wire.stop());
    const before = await openStore(wire.uri, 'store');
    await writeTexts(before);
    await before.close();
    const client = new MongoClient(wire.uri);
    // The counter document exactly as the older svc left it: the id counter and the recorded types.
    await client.db(databaseName(wire.uri, 'store')).collection<{ _id: string }>('svc.counters').replaceOne({ _id: 'm' }, { seq: 3, types: { v: type } });
    await client.close();
    const store = await openStore(wire.uri, 'store');
    t.teardown(() => store.close());
    await readsAfterUpgrade(t, store, type, model, values);
  });
}

// The first use after the upgrade is of a model file that no longer declares the field: when it
// comes back, its text is still looked at as the older svc left it.
for (const kind of ['SQLite', 'MongoDB'] as const) {
  t.test(`${kind}: a field made date by an older svc, removed on the first use after the upgrade, then back`, async (t) => {
    let open: () => Promise<Store>;
    const path = join(t.testdir(), 'store.sqlite');
    const wire = kind === 'MongoDB' ? await startMongoWireServer() : undefined;
    if (wire) {
      t.teardown(() => wire.stop());
      open = () => openStore(wire.uri, 'store');
    } else {
      open = () => openStore(`sqlite:${path}`, '');
    }
    const before = await open();
    await writeTexts(before);
    await before.close();
    if (wire) {
      const client = new MongoClient(wire.uri);
      await client.db(databaseName(wire.uri, 'store')).collection<{ _id: string }>('svc.counters').replaceOne({ _id: 'm' }, { seq: 3, types: { v: 'date' } });
      await client.close();
    } else {
      const db = new DatabaseSync(path);
      db.exec(`UPDATE svc_fields SET type = 'date'`);
      db.exec('PRAGMA user_version = 2');
      db.close();
    }
    const store = await open();
    t.teardown(() => store.close());
    await store.ensure(makeModel('m', { w: 'string' }));
    await upgraded(t, store, makeModel('m', { v: 'date', w: 'string' }), ['2024-05-01', '2024-05-02', undefined]);
  });
}
