// Defect: an `order_by` of 32 or more fields (id aside) was accepted, and became a MongoDB sort of 33
// or more keys (the fields, then the `_id` tie-break). MongoDB sorts on at most 32 keys
// (https://www.mongodb.com/docs/manual/reference/operator/aggregation/sort/#limits; the server's
// SortKeyGenerator builds an `Ordering` of the sort pattern, which refuses a 33rd key with error
// 13103 "too many compound keys"), so such a list was a 500 on MongoDB where SQLite answered it:
// against SPEC §9 ("results are identical for the same data and query"). The wire test server runs
// mingo, which has no such limit, so the test holds the translation itself to it: every query the
// parser accepts must translate to a sort MongoDB runs, and one it cannot is a 400 on both stores.

import t from 'tap';
import { parseQuery } from '../../src/model/query.ts';
import { translateQuery } from '../../src/store/mongodb/translate.ts';
import { SvcError } from '../../src/errors.ts';
import { makeModel } from '../fixtures/models.ts';
import { eachStore } from './each-store.ts';
import { collect } from './conformance.ts';

/** MongoDB's limit on the keys of a sort pattern. */
const MONGO_MAX_SORT_KEYS = 32;

const names = Array.from({ length: 40 }, (_, i) => `f${i}`);
const model = makeModel('wide', Object.fromEntries(names.map((n) => [n, 'integer' as const])));

/** The parsed query of `order_by=<terms>`, or the SvcError the parser throws. */
function parse(terms: string[]): ReturnType<typeof parseQuery> | SvcError {
  try {
    return parseQuery(model, [['order_by', terms.join(',')]]);
  } catch (e) {
    if (e instanceof SvcError) return e;
    throw e;
  }
}

t.test('every order the parser accepts is a sort MongoDB runs', async (t) => {
  for (let n = 1; n <= names.length; n++) {
    for (const terms of [names.slice(0, n), names.slice(0, n).map((f) => `-${f}`), [...names.slice(0, n), 'id']]) {
      const q = parse(terms);
      if (q instanceof SvcError) continue;
      const keys = Object.keys(translateQuery(model, q).sort).length;
      if (keys > MONGO_MAX_SORT_KEYS) {
        t.fail(`order_by of ${terms.length} terms is accepted and sorts MongoDB on ${keys} keys`);
        return;
      }
    }
  }
  t.pass('no accepted order sorts on more than 32 keys');
});

t.test('an order of more fields than MongoDB sorts by is a 400 naming order_by', async (t) => {
  const q = parse(names.slice(0, 32));
  t.ok(q instanceof SvcError, 'order_by of 32 fields (33 keys with the id tie-break) is refused');
  if (q instanceof SvcError) {
    t.equal(q.code, 'invalid-query');
    t.same(q.errors?.map((e) => ('parameter' in e ? e.parameter : e.field)), ['order_by']);
  }
});

t.test('orders within the limit are still accepted', async (t) => {
  t.notOk(parse(names.slice(0, 31)) instanceof SvcError, '31 fields: 32 keys with id');
  t.notOk(parse([...names.slice(0, 31), 'id']) instanceof SvcError, '31 fields then id: 32 keys');
  t.notOk(parse(Array(100).fill('f1')) instanceof SvcError, 'one field named 100 times is one key');
});

eachStore(t, async (t, store) => {
  // Both stores answer the longest accepted order alike (ties broken field by field, then by id).
  for (let i = 0; i < 6; i++) await store.insert(model, Object.fromEntries(names.map((n, k) => [n, k < 30 ? 0 : (i * 7 + k) % 3])), '2025-01-01T00:00:00.000Z');
  const q = parse(names.slice(0, 31).map((f) => `-${f}`));
  if (q instanceof SvcError) throw q;
  t.same((await collect(store.list(model, q))).map((m) => m.id), [3, 6, 2, 5, 1, 4]);
});
