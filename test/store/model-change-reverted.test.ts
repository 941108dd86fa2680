// A model changed and changed back while the first change's migration waits (for the write lock,
// held by another process or the writer thread): the reverted model's requests must find the table
// as that migration leaves it. They took the description from before it, and kept it while the
// model file stayed the same: every write and filtered read failed (500, "no column named v") and
// members read as the changed type.

import { join } from 'node:path';
import t from 'tap';
import type { Model } from '../../src/model/types.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../fixtures/models.ts';
import { collect, filter, ids, query } from './conformance.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

// A file store: its lists stream on connections of their own, so the change back can migrate while
// the change's list is still read (`sqlite::memory:` has one connection, which a migration would
// take from under that list).
t.test('integer → string → integer before the first migration ran', async (t) => {
  const store = await openSqliteStore(`sqlite:${join(t.testdir(), 'nums.sqlite')}`, '');
  t.teardown(() => store.close());
  const asInteger = (): Model => makeModel('nums', { v: 'integer' });
  const asString = (): Model => makeModel('nums', { v: 'string' });
  const before = asInteger();
  await store.insert(before, { v: 5 }, stamp(1));

  // A write in flight (the change's migration waits for it), the change, and the change back, in one turn.
  const written = store.insert(before, { v: 7 }, stamp(2));
  const changed = collect(store.list(asString(), query({})));
  const reverted = asInteger(); // the model file as it is again: the same object for every request after
  const back = collect(store.list(reverted, query({})));
  await written;
  t.same((await changed).map((m) => m.v), ['5', '7'], 'the change reads text');
  t.same((await back).map((m) => m.v), [5, 7], 'the change back reads integers');

  // And keeps working for that model object.
  t.equal((await store.insert(reverted, { v: 9 }, stamp(3))).v, 9, 'a create under the reverted model');
  t.same((await collect(store.list(reverted, query({})))).map((m) => m.v), [5, 7, 9], 'integers');
  t.same(await ids(store, reverted, { filters: [filter('v', 'gt', 6)] }), [2, 3], 'filters compare integers');
});
