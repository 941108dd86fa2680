// The store's connection reads its database file through a memory map (store/sqlite/database.ts),
// and the memory bound (--max-rss, sandbox/memory-guard.ts) counts anonymous memory only: a large
// database read by the server must not look like memory its handlers hold.

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { anonymousRss } from '../../src/sandbox/memory-guard.ts';
import { openDatabase, openReader } from '../../src/store/sqlite/database.ts';
import { Deadline } from '../../src/store/sqlite/deadline.ts';

const MiB = 1024 * 1024;

/** Resident pages of mapped files, in bytes (RssFile of /proc/self/status). */
function fileRss(): number {
  return Number(/^RssFile:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'latin1'))![1]) * 1024;
}

const linux = (() => {
  try {
    fileRss();
    return true;
  } catch {
    return false;
  }
})();

t.test('a database read by the store is mapped, and its pages are not anonymous memory', { skip: linux ? false : 'no /proc/self/status RssFile here' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mmap-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'big.sqlite');
  const writer = openDatabase(path);
  writer.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)');
  writer.exec('BEGIN');
  writer.exec('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 16000) INSERT INTO t SELECT i, randomblob(4000) FROM n');
  writer.exec('COMMIT');
  writer.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  writer.close();
  const size = statSync(path).size;
  t.ok(size > 60 * MiB, `a ${Math.round(size / MiB)} MiB file`);

  // instr() reads every byte of every body.
  const scan = "SELECT count(*) AS n FROM t WHERE instr(body, x'00ff00ff00ff00ff00ff00ff') >= 0";
  const reader = openReader(path, new Deadline());
  t.teardown(() => reader.close());
  const fileBefore = fileRss();
  reader.prepare(scan).get();
  t.ok(fileRss() - fileBefore < 16 * MiB, 'a reader thread\'s scan copies pages: it maps none of the file');

  const db = openDatabase(path);
  t.teardown(() => db.close());
  t.equal(db.prepare('PRAGMA mmap_size').get()!.mmap_size, 1 << 30, 'the store\'s connection maps up to 1 GiB');
  const anonBefore = anonymousRss();
  const mappedBefore = fileRss();
  t.equal(db.prepare(scan).get()!.n, 16000, 'every row read');
  const mapped = fileRss() - mappedBefore;
  const anon = anonymousRss() - anonBefore;
  t.ok(mapped > 0.8 * size, `the file's pages are resident through the map (${Math.round(mapped / MiB)} MiB)`);
  t.ok(anon < 16 * MiB, `anonymous memory grew by ${Math.round(anon / MiB)} MiB only`);
});

t.test('anonymousRss counts memory the process allocates', { skip: linux ? false : 'no /proc/self/status here' }, async (t) => {
  const before = anonymousRss();
  const held = Buffer.alloc(64 * MiB, 1);
  t.ok(anonymousRss() - before > 48 * MiB, 'a 64 MiB buffer, filled, is counted');
  t.equal(held[held.length - 1], 1);
});
