// Opening an app's store (at start, and in tenant mode on a tenant's first request, again after each
// idle release) ran a write transaction on its bookkeeping tables on the event loop, with SQLite's
// busy handler: while another process held the file's write lock (another --workers process's
// migration or commit, an operator's sqlite3), the whole process slept in it, every app's requests
// with it, for up to 5 s, and then the open failed. The tables are written only when they need it
// (a file svc has not made yet, or made by an older svc), and then the lock is waited for on timers.

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../fixtures/models.ts';
import { keepWriterThread } from '../helpers/writer-thread.ts';
import { collect, query } from './conformance.ts';

// The file stores of every subtest share one writer thread instead of starting one each (test/helpers/writer-thread.ts).
const writer = await keepWriterThread();
t.teardown(() => writer.close());

const model = makeModel('notes', { n: 'integer' });

/** A connection of "another process" that holds `path`'s write lock until its `release()`. */
function holdLock(t: { teardown(fn: () => unknown): void }, path: string): { release(): void } {
  const holder = new DatabaseSync(path);
  t.teardown(() => holder.close());
  holder.exec('PRAGMA journal_mode = WAL');
  holder.exec('BEGIN IMMEDIATE');
  return { release: () => holder.isTransaction && holder.exec('COMMIT') };
}

t.test('a store svc made before opens while another process holds the write lock', async (t) => {
  const path = join(t.testdir(), 'app.sqlite');
  const before = await openSqliteStore(`sqlite:${path}`, '');
  await before.insert(model, { n: 1 }, new Date().toISOString());
  await before.close();

  const lock = holdLock(t, path);
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  t.pass('opened with the lock held: its bookkeeping needs no write');
  lock.release();
  t.same((await collect(store.list(model, query({})))).map((m) => m.n), [1], 'read');
  t.equal((await store.insert(model, { n: 2 }, new Date().toISOString())).n, 2, 'and written');
});

t.test('a file whose bookkeeping is to be made: the open waits for the lock without holding up the event loop', async (t) => {
  const path = join(t.testdir(), 'new.sqlite');
  const lock = holdLock(t, path);
  // Released by the event loop's next turn: a open that sleeps in SQLite's busy handler never lets it come.
  let turns = 0;
  setImmediate(() => {
    turns++;
    lock.release();
  });
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  t.equal(turns, 1, 'the event loop turned while the open waited for the lock');
  t.equal((await store.insert(model, { n: 1 }, new Date().toISOString())).n, 1, 'the store works');
});
