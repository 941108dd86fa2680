// Another process holds the write lock on one app's database file: the writes to that file wait for
// it (each up to BUSY_TIMEOUT_MS from when it was issued, then 503 store-unavailable), while the
// writer thread, which every app of the process shares, goes on writing the other apps' files.
// SQLite's busy handler used to sleep in the thread: each queued write to the locked file held it
// for a full 5 s, one after another (8 creates: 503 at 5, 10 … 40 s), and another app's create
// waited behind them all.

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setImmediate as nextTurn } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { SvcError } from '../../src/errors.ts';
import type { Member } from '../../src/model/types.ts';
import type { Store } from '../../src/store/store.ts';
import { BUSY_TIMEOUT_MS, sqlitePath } from '../../src/store/sqlite/database.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../fixtures/models.ts';
import { collect, query } from './conformance.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();
const model = makeModel('notes', { n: 'integer' });

/** Two apps' stores in this process (so one writer thread), each with a row written; and a connection holding A's write lock. */
async function setUp(t: Test): Promise<{ a: Store; b: Store; holder: DatabaseSync }> {
  const uri = `sqlite:${join(t.testdir(), 'svc.sqlite')}`;
  const a = await openSqliteStore(uri, 'a');
  const b = await openSqliteStore(uri, 'b');
  t.teardown(() => Promise.all([a.close(), b.close()]));
  // Tables made (a model change takes the lock too) and the writer thread's connections opened.
  await Promise.all([a.insert(model, { n: 0 }, stamp(0)), b.insert(model, { n: 0 }, stamp(0))]);
  const holder = new DatabaseSync(sqlitePath(uri, 'a'));
  t.teardown(() => holder.close());
  holder.exec('BEGIN IMMEDIATE');
  return { a, b, holder };
}

/** Writes to `a` issued over two turns of the event loop (so in two messages to the thread), each with the time it was issued. */
async function writesTo(a: Store): Promise<{ issued: number; done: Promise<Member> }[]> {
  const issue = (n: number) => ({ issued: performance.now(), done: a.insert(model, { n }, stamp(n)) });
  const writes = [issue(1), issue(2)];
  for (const w of writes) w.done.catch(() => {});
  await nextTurn();
  const later = issue(3);
  later.done.catch(() => {});
  return [...writes, later];
}

/** Which settles first: `p`, or any of `others`. */
function first(p: Promise<unknown>, others: Promise<unknown>[]): Promise<'it' | 'another'> {
  const settled = (x: Promise<unknown>) => x.then(() => {}, () => {});
  return Promise.race([settled(p).then(() => 'it' as const), ...others.map((o) => settled(o).then(() => 'another' as const))]);
}

t.test('while another connection holds the lock: other apps write on, and each waiting write fails within its own bound', async (t) => {
  const { a, b } = await setUp(t);
  const writes = await writesTo(a);
  const other = b.insert(model, { n: 9 }, stamp(9));
  t.equal(await first(other, writes.map((w) => w.done)), 'it', "another app's write is acknowledged while the file is locked, before any write to it is answered");
  t.equal((await other).id, 2);

  for (const [i, w] of writes.entries()) {
    const err = await w.done.then(() => undefined, (e: unknown) => e);
    const took = performance.now() - w.issued;
    t.ok(err instanceof SvcError && err.code === 'store-unavailable' && err.status === 503, `write ${i + 1}: 503 store-unavailable (${String(err)})`);
    t.match((err as SvcError).headers, { 'retry-after': /^\d+$/ }, 'with Retry-After');
    // At its own deadline: not one busy timeout after another (they were 5, 10, 15 s). The upper
    // margin is for a machine whose cores are busy.
    t.ok(took >= BUSY_TIMEOUT_MS - 50 && took < 2 * BUSY_TIMEOUT_MS, `write ${i + 1}: failed ${took.toFixed(0)} ms after it was issued (waited for the lock up to ${BUSY_TIMEOUT_MS} ms)`);
  }
  t.same((await collect(a.list(model, query()))).map((m) => m.n), [0], 'none of them was stored');
});

t.test('writes waiting for the lock go through once it is released', async (t) => {
  const { a, b, holder } = await setUp(t);
  const writes = await writesTo(a);
  // The thread takes messages in order: once it acknowledged this one, it has tried A's writes.
  const other = b.insert(model, { n: 9 }, stamp(9));
  t.equal(await first(other, writes.map((w) => w.done)), 'it', "another app's write first");
  holder.exec('COMMIT');
  const done = await Promise.all(writes.map((w) => w.done));
  t.same(done.map((m) => m.n), [1, 2, 3], 'acknowledged');
  t.same((await collect(a.list(model, query()))).map((m) => m.n), [0, 1, 2, 3], 'and stored');
  t.equal((await a.insert(model, { n: 4 }, stamp(4))).id, 5, 'later writes go through at once');
});
