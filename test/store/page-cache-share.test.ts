// The page cache budget: the stores' main connections share it (2 to 64 MiB each, 256 MiB at
// most in all), each share made again as stores open and close; a file store takes its share
// while open, a store in memory none.

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import { openStore, pageCacheMiB } from '../../src/store/open.ts';
import { sharePageCache } from '../../src/store/sqlite/database.ts';

/** The page cache a connection keeps, in KiB (cache_size is negative when given in KiB). */
function cacheKiB(db: DatabaseSync): number {
  return -(db.prepare('PRAGMA cache_size').get() as { cache_size: number }).cache_size;
}

/** What a connection joining now gets of `budgetMiB`; it leaves again at once. */
function probe(budgetMiB?: number): number {
  const db = new DatabaseSync(':memory:');
  const leave = sharePageCache(db, budgetMiB);
  const kib = cacheKiB(db);
  leave();
  db.close();
  return kib;
}

t.test('one store gets 64 MiB of the default 256; eight get 32 each; many get SQLite\'s own 2,000 KiB', (t) => {
  t.equal(probe(), 64 * 1024);
  const dbs = Array.from({ length: 7 }, () => new DatabaseSync(':memory:'));
  const leaves = dbs.map((db) => sharePageCache(db, 256));
  t.equal(probe(256), 32 * 1024, 'an eighth gets an eighth');
  const eighth = new DatabaseSync(':memory:');
  const leaveEighth = sharePageCache(eighth, 256);
  t.ok([...dbs, eighth].every((db) => cacheKiB(db) === 32 * 1024), 'and each of the seven others is made that share');
  leaveEighth();
  eighth.close();
  const more = Array.from({ length: 200 }, () => new DatabaseSync(':memory:'));
  const moreLeaves = more.map((db) => sharePageCache(db, 256));
  t.ok([...dbs, ...more].every((db) => cacheKiB(db) === 2000), 'never under SQLite\'s default');
  for (const leave of moreLeaves) leave();
  t.ok(dbs.every((db) => cacheKiB(db) === Math.round((256 * 1024) / 7)), 'those that left give their shares back');
  for (const leave of leaves) leave();
  for (const db of [...dbs, ...more]) db.close();
  t.equal(probe(256), 64 * 1024);
  t.end();
});

t.test('the budget is an eighth of --max-rss, 256 MiB at most', (t) => {
  t.equal(probe(pageCacheMiB(128)), 16 * 1024, '--max-rss 128: 16 MiB');
  t.equal(probe(pageCacheMiB(64 * 1024)), 64 * 1024, 'a large --max-rss: 256 MiB in all, 64 for one');
  t.equal(probe(pageCacheMiB(0)), 64 * 1024, 'no --max-rss: the default');
  t.end();
});

t.test('a file store holds its share while open; a store in memory holds none', async (t) => {
  const memory = await openStore('sqlite::memory:', '', { pageCacheMiB: 32 });
  t.equal(probe(32), 32 * 1024, 'in memory: every page is in memory anyway');
  const file = await openStore(`sqlite:${join(t.testdir(), 'a.sqlite')}`, '', { pageCacheMiB: 32 });
  t.equal(probe(32), 16 * 1024, 'the file store and the probe share the 32 MiB');
  await file.close();
  t.equal(probe(32), 32 * 1024, 'closed, it gave its share back');
  await memory.close();
});
