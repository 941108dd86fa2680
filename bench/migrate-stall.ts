// How long one tenant's model change stalls the other tenants of its process (README "Models"):
// tenant A's SQLite table of N members is migrated by its first use after a model change, while
// tenant B (another file, same process) reads a member by id back to back. Prints, per change, the
// migration's wall time, the event loop's longest stall during it, and B's requests meanwhile
// (count, slowest: from when each was due, 1 ms after the last).
//
//   node bench/migrate-stall.ts [members=20000] [changes=index,type,date,wide]
//
//   index  40 string fields made "index": true (each CREATE INDEX reads every member)
//   type   an integer field made string (its values move to a new column, converted)
//   date   a string field made date (every value read, rewritten in canonical form)
//   wide   the first use of a model of 1,000 fields, "index": false (the table is created)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import type { Model } from '../src/model/types.ts';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { makeModel, type FieldSpec } from '../test/fixtures/models.ts';

const MEMBERS = Number(process.argv[2] ?? 20_000);
const CHANGES = (process.argv[3] ?? 'index,type,date,wide').split(',');
const FIELDS = 40;

const dir = mkdtempSync(join(tmpdir(), 'svc-migrate-stall-'));

/** `n` string fields f0… with `index` as given, and `code` (integer) and `day` (string). */
function fields(indexed: boolean, code: 'integer' | 'string' = 'integer', day: 'string' | 'date' = 'string'): Record<string, FieldSpec> {
  const out: Record<string, FieldSpec> = { code: { type: code, index: false }, day: { type: day, index: false } };
  for (let i = 0; i < FIELDS; i++) out[`f${i}`] = indexed ? 'string' : { type: 'string', index: false };
  return out;
}

/** A's store with MEMBERS members of `model`, written straight into the table the store made (shape 1). */
async function seeded(name: string, model: Model): Promise<{ store: Store; path: string }> {
  const path = join(dir, `${name}.sqlite`);
  const first = await openSqliteStore(`sqlite:${path}`, '');
  await first.ensure(model);
  await first.close();
  const db = new DatabaseSync(path);
  const cols = model.declared.map((f) => f.name);
  const insert = db.prepare(`INSERT INTO "${model.name}" (updated, ${cols.map((c) => `"${c}"`).join(', ')}, "~json", "~shape") VALUES (?, ${cols.map(() => '?').join(', ')}, ?, 1)`);
  db.exec('BEGIN');
  for (let i = 0; i < MEMBERS; i++) {
    const data: Record<string, string | number> = {};
    for (const c of cols) data[c] = c === 'code' ? i : c === 'day' ? `2024-0${1 + (i % 9)}-1${i % 10}T10:00:00+02:00` : `${c}-${(i * 7919) % MEMBERS}`;
    insert.run('2025-01-01T00:00:00.000Z', ...cols.map((c) => data[c]!), JSON.stringify(data));
  }
  db.exec('COMMIT');
  db.close();
  return { store: await openSqliteStore(`sqlite:${path}`, ''), path };
}

/** Runs `change`, measuring the event loop and B's reads by id during it. */
async function measure(label: string, change: () => Promise<void>, other: Store, otherModel: Model): Promise<void> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let longest = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  let running = true;
  /** B's reads: when each was due and when it was answered. */
  const latencies: { arrives: number; done: number }[] = [];
  const reads = (async () => {
    while (running) {
      // A request that arrives 1 ms from now: its latency counts from then (a stall it meets included).
      const arrives = performance.now() + 1;
      await new Promise((resolve) => setTimeout(resolve, 1));
      await other.get(otherModel, 1 + (latencies.length % 100));
      latencies.push({ arrives, done: performance.now() });
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 20));
  histogram.enable();
  last = performance.now();
  const started = performance.now();
  await change();
  const took = performance.now() - started;
  // The timers see a stall when they next run: after the change's last turn.
  await new Promise((resolve) => setTimeout(resolve, 20));
  histogram.disable();
  clearInterval(tick);
  running = false;
  await reads;
  const finished = started + took;
  // Those due before the change ended, answered after it began.
  const during = latencies.filter((r) => r.arrives < finished && r.done > started).map((r) => r.done - r.arrives);
  const slowest = Math.max(0, ...during);
  console.log(
    `${label}: ${took.toFixed(0)} ms; event loop's longest stall ${Math.max(longest, histogram.max / 1e6).toFixed(0)} ms; ` +
      `tenant B: ${during.length} reads by id during it, slowest ${slowest.toFixed(1)} ms`,
  );
}

const other = await openSqliteStore(`sqlite:${join(dir, 'b.sqlite')}`, '');
const otherModel = makeModel('notes', { text: 'string' });
for (let i = 0; i < 100; i++) await other.insert(otherModel, { text: `note ${i}` }, new Date().toISOString());

console.log(`${MEMBERS.toLocaleString('en')} members, ${FIELDS + 2} fields (node ${process.version})`);
for (const change of CHANGES) {
  if (change === 'index') {
    const { store } = await seeded('index', makeModel('things', fields(false)));
    await measure(`${FIELDS} fields made "index": true`, () => store.ensure(makeModel('things', fields(true))), other, otherModel);
    await store.close();
  } else if (change === 'type') {
    const { store } = await seeded('type', makeModel('things', fields(false)));
    await measure('integer → string', () => store.ensure(makeModel('things', fields(false, 'string'))), other, otherModel);
    await store.close();
  } else if (change === 'date') {
    const { store } = await seeded('date', makeModel('things', fields(false)));
    await measure('string → date', () => store.ensure(makeModel('things', fields(false, 'integer', 'date'))), other, otherModel);
    await store.close();
  } else if (change === 'wide') {
    const store = await openSqliteStore(`sqlite:${join(dir, 'wide.sqlite')}`, '');
    const wide: Record<string, FieldSpec> = {};
    for (let i = 0; i < 1000; i++) wide[`w${i}`] = { type: 'string', index: false };
    await measure('first use of a model of 1,000 fields', () => store.ensure(makeModel('wide', wide)), other, otherModel);
    await store.close();
  } else throw new Error(`unknown change "${change}" (index, type, date, wide)`);
}
await other.close();
rmSync(dir, { recursive: true });
