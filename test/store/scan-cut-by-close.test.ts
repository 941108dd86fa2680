// A list that scans reads its rows in a reader thread, a batch at a time as its consumer takes
// them. Closing the store (the last one of the file) closes the threads' connections to the file
// and stops the reads on them: the next batch of such a read came back empty and "done", so the
// list ended early as if it were whole (an HTTP list: 200 with fewer members than its
// X-Total-Count, the closing `]` and all). A read stopped so fails, and a response already
// committed is cut, as for any failure after the first byte.

import { join } from 'node:path';
import t from 'tap';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../fixtures/models.ts';
import { filter, query } from './conformance.ts';

/** More than a reader thread's batch (256 rows): a scan of them is still open after its first batch. */
const MEMBERS = 600;

t.test('a scan whose store is closed under it fails instead of ending short', async (t) => {
  const store = await openSqliteStore(`sqlite:${join(t.testdir(), 'notes.sqlite')}`, '');
  const model = makeModel('notes', { text: 'text' });
  const stamp = new Date().toISOString();
  await Promise.all(Array.from({ length: MEMBERS }, (_, i) => store.insert(model, { text: `note ${i}` }, stamp)));
  const list = store.list(model, query({ filters: [filter('text', 'contains', 'note')] }))[Symbol.asyncIterator]();
  t.equal((await list.next()).value?.id, 1, 'the list has begun');
  await store.close();

  let read = 1;
  const rest = (async () => {
    for (let r = await list.next(); !r.done; r = await list.next()) read++;
  })();
  await t.rejects(rest, /reader thread/, 'the rest of the list fails');
  t.ok(read < MEMBERS, `it did not end as if whole (${read} of ${MEMBERS} read)`);
});
