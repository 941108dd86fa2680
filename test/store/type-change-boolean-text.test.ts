// A boolean field made text reads "true" and "false" on both stores (README "Storage": both stores
// answer every query the same way). SQLite keeps a boolean as 1 or 0 in its column: the migration
// read "1" and "0" from there, where the MongoDB store reads the boolean it keeps as "true". Made
// boolean again, non-empty text reads true (README "Models"); filters agree with what they read.

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t, { type Test } from 'tap';
import type { Model } from '../../src/model/types.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';
import { keepWriterThread } from '../helpers/writer-thread.ts';
import { collect, filter, ids, query } from './conformance.ts';
import { eachStore } from './each-store.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

// The file stores of every subtest share one writer thread instead of starting one each (test/helpers/writer-thread.ts).
const writer = await keepWriterThread();
t.teardown(() => writer.close());

async function boolToText(t: Test, store: Store): Promise<void> {
  const asBoolean = (): Model => makeModel('flags', { flag: 'boolean', n: 'integer' });
  const asText = (): Model => makeModel('flags', { flag: 'string', n: 'integer' });
  for (const [i, flag] of [true, false, null, true].entries()) await store.insert(asBoolean(), flag === null ? { n: i } : { flag, n: i }, stamp(i));

  const texts = await collect(store.list(asText(), query({})));
  t.same(texts.map((m) => m.flag ?? null), ['true', 'false', null, 'true'], 'read as text: "true" and "false"');
  t.same(await Promise.all(texts.map((m) => store.get(asText(), m.id).then((x) => x?.flag ?? null))), ['true', 'false', null, 'true'], 'by id alike');
  t.same(await ids(store, asText(), { filters: [filter('flag', 'exact', 'true')] }), [texts[0]!.id, texts[3]!.id], 'flag=true finds them');
  t.same(await ids(store, asText(), { filters: [filter('flag', 'exact', '1')] }), [], 'flag=1 finds none');
  t.equal(await store.count(asText(), [filter('flag', 'startswith', 'f')]), 1, 'startswith f: the false one');

  // Text made boolean: non-empty text is true (README "Models"), "false" too.
  const back = await collect(store.list(asBoolean(), query({})));
  t.same(back.map((m) => m.flag ?? null), [true, true, null, true], 'made boolean again: non-empty text is true');
  t.same(await ids(store, asBoolean(), { filters: [filter('flag', 'exact', true)] }), [back[0]!.id, back[1]!.id, back[3]!.id], 'flag=true as a boolean');
}

eachStore(t, boolToText, { memory: true });

// A boolean kept as 1 or 0 reads "true" or "false" as text also when the row's JSON text no longer
// holds it: after an earlier change made the field boolean (5 became true), or when another field
// moved in the same change. SQLite read the column's 1 as "1" there, MongoDB "true". The type each
// column holds is recorded (svc_fields.type) and read before the new one.
async function chains(t: Test, store: Store): Promise<void> {
  // Two fields move at once.
  await store.insert(makeModel('e', { s: 'integer', t: 'boolean' }), { s: 7, t: true }, stamp(1));
  const both = makeModel('e', { s: 'string', t: 'string' });
  t.same(await store.get(both, 1), { id: 1, updated: stamp(1), s: '7', t: 'true' }, 'two fields moved at once');
  t.equal(await store.count(both, [filter('t', 'exact', 'true')]), 1, 't=true');
  t.equal(await store.count(both, [filter('t', 'exact', '1')]), 0, 't=1');
  // integer → boolean → string.
  await store.insert(makeModel('b', { x: 'integer' }), { x: 5 }, stamp(2));
  await store.insert(makeModel('b', { x: 'integer' }), { x: 0 }, stamp(3));
  await store.insert(makeModel('b', { x: 'integer' }), { x: 1 }, stamp(4));
  t.same((await collect(store.list(makeModel('b', { x: 'boolean' }), query({})))).map((m) => m.x), [true, false, true], 'as booleans');
  const text = makeModel('b', { x: 'string' });
  t.same((await collect(store.list(text, query({})))).map((m) => m.x), ['true', 'false', 'true'], 'then as text: "true" and "false"');
  t.equal(await store.count(text, [filter('x', 'lt', '2')]), 0, 'x__lt=2 compares text "true"/"false"');
}

eachStore(t, chains, { title: 'chains through boolean: ' });

t.test('a database an older svc made, without svc_fields.type: upgraded on open; a type not recorded falls back to the JSON text', async (t) => {
  const path = join(t.testdir(), 'old.sqlite');
  const before = await openStore(`sqlite:${path}`, '');
  await before.insert(makeModel('o', { flag: 'boolean' }), { flag: true }, stamp(1));
  await before.close();
  const db = new DatabaseSync(path);
  db.exec('ALTER TABLE svc_fields DROP COLUMN type');
  db.close();
  const store = await openStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  t.same((await collect(store.list(makeModel('o', { flag: 'string' }), query({})))).map((m) => m.flag), ['true'], 'read as text');
  t.same((await collect(store.list(makeModel('o', { flag: 'boolean' }), query({})))).map((m) => m.flag), [true], 'and back');
});
