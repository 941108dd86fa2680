// A process killed (SIGKILL) while the migration thread is part way through a model change (20
// indexes made and a field's values moved to a column of its new type, over 40,000 members):
// the file holds the table as it was, every member with it, and the next process migrates it.
// The migration runs in a thread of its own now (migrator.ts), on a connection of its own: still
// one transaction, which a crash leaves undone.

import { spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Model } from '../../src/model/types.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel, type FieldSpec } from '../fixtures/models.ts';
import { collect, filter, query } from './conformance.ts';

const SQLITE_MODULE = fileURLToPath(new URL('../../src/store/sqlite/sqlite-store.ts', import.meta.url));
const MEMBERS = 40_000;
const FIELDS = 20;

function model(changed: boolean): Model {
  const fields: Record<string, FieldSpec> = { code: { type: changed ? 'string' : 'integer', index: false } };
  for (let i = 0; i < FIELDS; i++) fields[`f${i}`] = changed ? 'string' : { type: 'string', index: false };
  return makeModel('things', fields);
}

t.test('killed part way through a migration: the table as it was, and migrated by the next process', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'a.sqlite');
  const before = model(false);
  const after = model(true);
  const seeding = await openSqliteStore(`sqlite:${path}`, '');
  await seeding.ensure(before);
  await seeding.close();
  const db = new DatabaseSync(path, { timeout: 0 });
  t.teardown(() => db.close());
  const cols = before.declared.map((f) => f.name);
  const insert = db.prepare(`INSERT INTO things (updated, ${cols.join(', ')}, "~json", "~shape") VALUES (?, ${cols.map(() => '?').join(', ')}, ?, 1)`);
  db.exec('BEGIN');
  for (let i = 0; i < MEMBERS; i++) {
    const values = cols.map((c) => (c === 'code' ? i : `${c}-${i}`));
    insert.run('2025-01-01T00:00:00.000Z', ...values, JSON.stringify(Object.fromEntries(cols.map((c, n) => [c, values[n]!]))));
  }
  db.exec('COMMIT');
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const schema = () => db.prepare(`SELECT type, name, sql FROM sqlite_schema ORDER BY name`).all();
  const bookkeeping = () => db.prepare('SELECT field, col, type FROM svc_fields ORDER BY field').all();
  const schemaBefore = schema();
  const fieldsBefore = bookkeeping();

  const script = join(dir, 'child.mjs');
  writeFileSync(
    script,
    `const { openSqliteStore } = await import(${JSON.stringify(SQLITE_MODULE)});
     const model = ${JSON.stringify({ ...after, fields: undefined })};
     model.fields = new Map(model.declared.map((f) => [f.name, f]));
     const store = await openSqliteStore(${JSON.stringify(`sqlite:${path}`)}, '');
     process.stdout.write('migrating\\n');
     await store.ensure(model);
     process.stdout.write('migrated\\n');
     setInterval(() => {}, 1000);`,
  );
  // A file, not `-e`: the store's threads inherit the process's flags, and a worker refuses `--input-type`.
  const child = spawn(process.execPath, ['--no-warnings', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  // Part way: the migration holds the write lock and has written pages of its transaction to the
  // log (the indexes outgrow the page cache), and has not committed.
  const wal = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  const started = performance.now();
  let killed = false;
  while (!killed && performance.now() - started < 30_000) {
    await sleep(2);
    if (out.includes('migrated')) break;
    if (!out.includes('migrating') || wal() < 1024 * 1024) continue;
    try {
      db.exec('BEGIN IMMEDIATE');
      db.exec('ROLLBACK');
    } catch {
      // Busy: the migration holds the lock, with its pages in the log.
      child.kill('SIGKILL');
      killed = true;
    }
  }
  if (!killed) child.kill('SIGKILL');
  await exited;
  t.ok(killed, 'killed while the migration held the lock, part way');
  t.notOk(out.includes('migrated'), 'before the migration ended');

  t.same(schema(), schemaBefore, 'the tables and indexes as they were');
  t.same(bookkeeping(), fieldsBefore, 'the fields map as it was');
  t.same(db.prepare('SELECT count(*) AS n, sum(code) AS s FROM things').get(), { n: MEMBERS, s: ((MEMBERS - 1) * MEMBERS) / 2 }, 'every member and value');
  t.equal(db.prepare('PRAGMA integrity_check').get()!.integrity_check, 'ok', 'the file is sound');

  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  t.equal(await store.count(after, []), MEMBERS, 'the next process migrates it');
  t.same((await collect(store.list(after, query({ filters: [filter('code', 'exact', '123')] })))).map((m) => m.f0), ['f0-123'], 'the values in their new type');
  t.equal(db.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE type = 'index' AND name LIKE 'things/f%'`).get()!.n, FIELDS, 'and its indexes');
});
