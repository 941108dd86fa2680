// A boolean field made text reads "true" and "false" on both stores (README "Storage": both stores
// answer every query the same way). SQLite keeps a boolean as 1 or 0 in its column: the migration
// read "1" and "0" from there, where the MongoDB store reads the boolean it keeps as "true". Made
// boolean again, non-empty text reads true (README "Models"); filters agree with what they read.

import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { Model } from '../../src/model/types.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';
import { collect, filter, ids, query } from './conformance.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

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

t.test('SQLite file', async (t) => {
  const store = await openStore(`sqlite:${join(t.testdir(), 'flags.sqlite')}`, '');
  t.teardown(() => store.close());
  await boolToText(t, store);
});

t.test('SQLite in memory', async (t) => {
  const store = await openStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  await boolToText(t, store);
});

t.test('MongoDB (the wire test server)', async (t) => {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  const store = await openStore(wire.uri, 'flags');
  t.teardown(() => store.close());
  await boolToText(t, store);
});
