// The writer thread's connection keeps statement journals in memory (openWriter, database.ts): a
// group commit of creates, each of whose statements fires the collection's count trigger and
// changes a page of every field's index, wrote them to temporary files, 13 writes a create.

import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import { openDatabase, openWriter } from '../../src/store/sqlite/database.ts';
import { GroupCommit } from '../../src/store/sqlite/group-commit.ts';
import { Statements } from '../../src/store/sqlite/statements.ts';

/** SQLite's temporary files this process has open (unlinked at once: only their descriptors show them). */
function openTempFiles(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (/etilqs_/.test(readlinkSync(`/proc/self/fd/${fd}`))) n++;
    } catch {
      // closed meanwhile (readdir's own descriptor)
    }
  }
  return n;
}

/** The most temporary files open at once during a transaction of 20 inserts shaped like a store's creates. */
function tempFilesDuringCreates(db: DatabaseSync): number {
  const fields = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  // As schema.ts makes a collection: an id, an index per field (with the id), a trigger keeping the count.
  db.exec(`CREATE TABLE m ("id" INTEGER PRIMARY KEY AUTOINCREMENT, ${fields.map((f) => `"${f}" TEXT`).join(', ')})`);
  for (const f of fields) db.exec(`CREATE INDEX "m/${f}" ON m ("${f}", "id")`);
  db.exec('CREATE TABLE counts (k TEXT PRIMARY KEY, n INTEGER NOT NULL)');
  db.exec(`INSERT INTO counts VALUES ('m', 0)`);
  db.exec(`CREATE TRIGGER "m/insert" AFTER INSERT ON m BEGIN UPDATE counts SET n = n + 1 WHERE k = 'm'; END`);
  const insert = db.prepare(`INSERT INTO m VALUES (NULL, ${fields.map(() => '?').join(', ')})`);
  let seed = 1;
  const text = () => ((seed = (seed * 48271) % 2147483647) / 2147483647).toString(36).slice(2);
  db.exec('BEGIN');
  for (let i = 0; i < 2000; i++) insert.run(...fields.map(text));
  db.exec('COMMIT');
  let most = 0;
  db.exec('BEGIN IMMEDIATE');
  for (let i = 0; i < 20; i++) {
    insert.run(...fields.map(text));
    most = Math.max(most, openTempFiles());
  }
  db.exec('COMMIT');
  return most;
}

t.test('a group of creates on the writer connection opens no temporary file; on a plain connection it does', async (t) => {
  const dir = t.testdir();
  const plain = openDatabase(join(dir, 'plain.sqlite'));
  t.teardown(() => plain.close());
  // The control: without temp_store = MEMORY these statements' journals spill to a file, so the
  // assertion below is about something that happens.
  t.ok(tempFilesDuringCreates(plain) > 0, 'a plain connection spills statement journals to a temporary file');
  const writer = openWriter(join(dir, 'writer.sqlite'));
  t.teardown(() => writer.close());
  t.equal(tempFilesDuringCreates(writer), 0, 'the writer connection keeps them in memory');
  t.equal(writer.prepare('PRAGMA busy_timeout').get()?.timeout, 0, 'and has no busy handler (its writes wait on timers)');
});

t.test('what the journal is for: a write that fails part-way in a group commit is undone alone, in memory', async (t) => {
  const db = openWriter(join(t.testdir(), 'writer.sqlite'));
  t.teardown(() => db.close());
  tempFilesDuringCreates(db);
  // A statement that fails after its row, its index entries and the count went in: all of it undone.
  db.exec(`CREATE TRIGGER "m/boom" AFTER INSERT ON m WHEN NEW."a" = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END`);
  const writes = new GroupCommit(db, new Statements(db));
  const insert = `INSERT INTO m ("a", "b", "c", "d", "e", "f", "g", "h") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
  const row = (a: string) => [a, ...'bcdefgh'.split('').map((f) => `${a}-${f}`)];
  const results = await Promise.allSettled(['x1', 'x2', 'boom', 'x3', 'x4'].map((a) => writes.run(insert, row(a))));
  t.same(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'], 'the failed write alone is refused');
  t.equal(writes.commits, 1, 'the others share one commit');
  t.equal(db.prepare(`SELECT count(*) AS n FROM m WHERE "a" IN ('x1', 'x2', 'x3', 'x4', 'boom')`).get()?.n, 4, 'its row is gone');
  t.equal(db.prepare(`SELECT n FROM counts WHERE k = 'm'`).get()?.n, db.prepare('SELECT count(*) AS n FROM m').get()?.n, 'the kept count agrees with the rows');
  t.same(db.prepare('PRAGMA integrity_check').all(), [{ integrity_check: 'ok' }], 'every index agrees with the table');
  t.equal(openTempFiles(), 0, 'and no temporary file was used');
});
