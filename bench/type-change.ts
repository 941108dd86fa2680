// How long the SQLite store takes to rewrite a field of 100,000 members whose type changed (README
// "Models"): the migration runs in one transaction in the migration thread, and the collection's
// requests wait for it (bench/migrate-stall.ts measures what the event loop and other apps see).
//
//   node bench/type-change.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { DeclaredType } from '../src/model/types.ts';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../test/fixtures/models.ts';

const MEMBERS = 100_000;
const dir = mkdtempSync(join(tmpdir(), 'svc-type-change-'));
const path = join(dir, 'bench.sqlite');
const model = (code: DeclaredType) => makeModel('things', { code, name: 'string' });

// The members, written straight into the table the store made (shape 1: the first model's).
const first = await openSqliteStore(`sqlite:${path}`, '');
await first.ensure(model('integer'));
await first.close();
const db = new DatabaseSync(path);
db.exec('BEGIN');
const insert = db.prepare('INSERT INTO things (updated, code, name, "~json", "~shape") VALUES (?, ?, ?, ?, 1)');
for (let i = 0; i < MEMBERS; i++) insert.run('2025-01-01T00:00:00.000Z', i, `n${i}`, JSON.stringify({ code: i, name: `n${i}` }));
db.exec('COMMIT');
db.close();

const store = await openSqliteStore(`sqlite:${path}`, '');
for (const [label, type] of [['integer → string', 'string'], ['string → integer', 'integer'], ['integer → boolean', 'boolean']] as const) {
  const start = performance.now();
  await store.ensure(model(type));
  console.log(`${label}: ${(performance.now() - start).toFixed(0)} ms for ${MEMBERS.toLocaleString('en')} members`);
}
await store.close();
rmSync(dir, { recursive: true });
