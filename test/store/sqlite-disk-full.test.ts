// A write that SQLite cannot store for want of room (SQLITE_FULL: the disk is full) was 500
// internal-error, "a bug in the server: the log has the details", with a generic detail: the client
// could not tell that nothing was stored and that the server needs room, not a fix. It is 507
// store-full, nothing of it stored; once there is room, writes go on. The file's limit here is the
// writer thread's `max_page_count` (what a full disk does to SQLite's writes: a real one needs a
// file system of its own, which a test cannot mount everywhere).

import { join } from 'node:path';
import t from 'tap';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { ThreadWrites } from '../../src/store/sqlite/writer.ts';
import { makeModel } from '../fixtures/models.ts';
import { collect, query } from './conformance.ts';

t.test('a write with no room left is 507 store-full, and nothing of it is stored', async (t) => {
  const path = join(t.testdir(), 'full.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  const model = makeModel('notes', { text: 'text' });
  const first = await store.insert(model, { text: 'first' }, new Date().toISOString());

  // The writer thread's connection to the file: the one every write of this process goes through.
  const writer = new ThreadWrites(path);
  t.teardown(() => writer.close());
  await writer.run('PRAGMA max_page_count = 1', []); // never below the file's size: it is as full as it is

  const big = 'x'.repeat(64 * 1024);
  const failed = await Promise.allSettled([store.insert(model, { text: big }, new Date().toISOString()), store.replace(model, first.id, { text: big }, new Date().toISOString())]);
  for (const f of failed) t.match(f, { status: 'rejected', reason: { code: 'store-full', status: 507 } }, 'the write is store-full');
  const problem = (failed[0] as PromiseRejectedResult).reason as Error;
  t.match(problem.message, /no room/, `the detail says why: ${problem.message}`);
  t.same((await collect(store.list(model, query({})))).map((m) => m.text), ['first'], 'nothing of them was stored');

  await writer.run('PRAGMA max_page_count = 1073741823', []);
  t.equal((await store.insert(model, { text: big }, new Date().toISOString())).text, big, 'with room again, writes go on');
});
