// Text holding a NUL, in a field made a date or date-time and back to a string (README "Models":
// a field whose type changes reads its stored values in the new type). SQLite read date columns
// without the NUL-safe expression (node:sqlite cuts text at a NUL), on the assumption that dates
// never hold one: "a\0b" read "a". Such text is no date: absent as one (and so when the field is a
// string again, as "abc" made a number is), and a date field's text beside it reads whole.

import t, { type Test } from 'tap';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';
import { collect, query } from './conformance.ts';
import { eachStore } from './each-store.ts';

async function nulText(t: Test, store: Store): Promise<void> {
  const s = makeModel('c', { x: 'string', y: 'string' });
  await store.insert(s, { x: 'a\0b', y: 'a\0b' }, '2025-01-01T00:00:00.000Z');
  t.equal((await store.get(s, 1))?.x, 'a\0b', 'string: by id');
  t.same((await collect(store.list(s, query({})))).map((m) => m.x), ['a\0b'], 'string: in a list');
  if (store.listJson) t.same((await collect(store.listJson(s, query({})))).map((j) => JSON.parse(j).x), ['a\0b'], 'string: as JSON text');
  for (const type of ['date', 'date-time'] as const) {
    const m = makeModel('c', { x: type, y: 'string' });
    t.same(await store.get(m, 1), { id: 1, updated: (await store.get(m, 1))!.updated, y: 'a\0b' }, `${type}: no date, absent; the string beside it whole`);
    t.same((await collect(store.list(m, query({})))).map((x) => [x.x, x.y]), [[undefined, 'a\0b']], `${type}: in a list`);
    if (store.listJson) t.same((await collect(store.listJson(m, query({})))).map((j) => [JSON.parse(j).x, JSON.parse(j).y]), [[undefined, 'a\0b']], `${type}: as JSON text`);
  }
}

eachStore(t, nulText);
