// What the memory bound (--max-rss, src/sandbox/memory-guard.ts) counts: the process's anonymous
// resident memory, which grows with what it allocates and not with the pages of files it maps.

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import { anonymousRss } from '../../src/sandbox/memory-guard.ts';

const MiB = 1024 * 1024;

/** Resident pages of mapped files, in bytes (RssFile of /proc/self/status). */
function fileRss(): number {
  return Number(/^RssFile:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'latin1'))![1]) * 1024;
}

const proc = (() => {
  try {
    fileRss();
    return true;
  } catch {
    return false;
  }
})();
const skip = proc ? false : 'no /proc/self/status with RssFile here';

t.test('pages of a file the process maps are not', { skip }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-anon-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'big.sqlite');
  const db = new DatabaseSync(path);
  t.teardown(() => db.close());
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)');
  db.exec('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 16000) INSERT INTO t SELECT i, randomblob(4000) FROM n');
  const size = statSync(path).size;
  // SQLite reads the file through a map of it: the pages it touches become resident file pages.
  db.exec('PRAGMA mmap_size = 1073741824');
  // First in this file: nothing allocated before it can be freed during it.
  const anon = anonymousRss();
  const mapped = fileRss();
  const rss = process.memoryUsage.rss();
  // instr() reads every byte of every body.
  t.equal(db.prepare("SELECT count(*) AS n FROM t WHERE instr(body, x'00ff00ff00ff00ff') >= 0").get()!.n, 16000);
  t.ok(fileRss() - mapped > 0.8 * size, `${Math.round(size / MiB)} MiB of the file resident through the map`);
  t.ok(process.memoryUsage.rss() - rss > 0.8 * size, 'the resident size grew by as much');
  const grown = anonymousRss() - anon;
  t.ok(grown > -4 * MiB && grown < 16 * MiB, `anonymous memory grew by ${Math.round(grown / MiB)} MiB`);
});

t.test('memory the process allocates is counted', { skip }, async (t) => {
  const before = anonymousRss();
  const held = Buffer.alloc(64 * MiB, 1);
  const grown = anonymousRss() - before;
  t.ok(grown > 56 * MiB && grown < 96 * MiB, `a 64 MiB buffer, filled: ${Math.round(grown / MiB)} MiB`);
  t.equal(held[held.length - 1], 1);
  const status = Number(/^RssAnon:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'latin1'))![1]) * 1024;
  t.ok(Math.abs(anonymousRss() - status) < 4 * MiB, 'the same figure as RssAnon');
});
