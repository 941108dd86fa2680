// A list that scans (a filter no index serves) runs in a reader thread, which sends its rows a
// batch at a time as the response takes them. An app has one such query in the threads at a time,
// so that it cannot take both threads; but the turn was held for as long as the list's client took
// to read it. One client that reads slowly (or stops, until --request-timeout) made every other
// scan of the app wait, without a bound: a request of a direct `svc.delegate()` handler has no time
// of its own to run out. A turn is now one batch: a read waiting for its consumer holds none, and
// each read keeps a snapshot of its own (a connection of its own in the thread).

import { join } from 'node:path';
import t from 'tap';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../fixtures/models.ts';
import { collect, filter, query } from './conformance.ts';

/** More than a reader thread's batch (256 rows): a scan of them is still open after its first batch. */
const MEMBERS = 600;

// The failing behaviour is a wait that never ends: the test's own time is what ends it.
t.test('a scan whose client is slow does not hold up the app’s other scans', { timeout: 20_000 }, async (t) => {
  const store = await openSqliteStore(`sqlite:${join(t.testdir(), 'notes.sqlite')}`, '');
  t.teardown(() => store.close());
  const model = makeModel('notes', { text: 'text' });
  const stamp = new Date().toISOString();
  await Promise.all(Array.from({ length: MEMBERS }, (_, i) => store.insert(model, { text: `note ${i}` }, stamp)));
  const scan = query({ filters: [filter('text', 'contains', 'note')] });

  // Two clients take one member of their lists each, and no more for now: one in each reader thread.
  const slow = store.list(model, scan)[Symbol.asyncIterator]();
  t.equal((await slow.next()).value?.id, 1, 'a slow list has begun');
  const slower = store.list(model, scan)[Symbol.asyncIterator]();
  t.equal((await slower.next()).value?.id, 1, 'another slow list has begun');

  // Another client of the app lists with a scan, after a create: in a thread where a slow list is open.
  const created = await store.insert(model, { text: 'note late' }, new Date().toISOString());
  const other = await collect(store.list(model, scan));
  t.equal(other.length, MEMBERS + 1, 'the other scan is answered while the slow one waits for its client');
  t.equal(other.at(-1)?.id, created.id, 'and it sees the write acknowledged before it began');
  t.equal(await store.count(model, scan.filters), MEMBERS + 1, 'a count that scans is answered too');

  // The slow clients read on: each list is the snapshot it began with.
  for (const list of [slow, slower]) {
    let n = 1;
    for (let r = await list.next(); !r.done; r = await list.next()) n++;
    t.equal(n, MEMBERS, 'the slow list has every member there was when it began, and only those');
  }
});
