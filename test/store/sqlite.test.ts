// The embedded store: the conformance suite in memory and on a file, then what only SQLite has.

import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Member, Model, Query } from '../../src/model/types.ts';
import { prefixSuccessor, quoteIdent, scans, selectSql, countSql, type TableShape } from '../../src/store/sqlite/sql.ts';
import { openDatabase, retryWhileBusy, sqlitePath } from '../../src/store/sqlite/database.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { writerEvents, writerThread } from '../../src/store/sqlite/writer.ts';
import { indexDef, makeModel } from '../fixtures/models.ts';
import { keepWriterThread } from '../helpers/writer-thread.ts';
import { collect, filter, ids, order, query, runStoreSuiteOn } from './conformance.ts';

const SQLITE_MODULE = fileURLToPath(new URL('../../src/store/sqlite/sqlite-store.ts', import.meta.url));
const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

// The file stores of every subtest share one writer thread instead of starting one each
// (test/helpers/writer-thread.ts); the last subtest closes this store to test the thread's own
// start and end.
const writer = await keepWriterThread();
t.teardown(() => writer.close());

t.test('conformance: sqlite::memory:', async (t) => {
  runStoreSuiteOn(t, 'sqlite::memory:');
});

t.test('conformance: sqlite file', async (t) => {
  runStoreSuiteOn(t, `sqlite:${join(t.testdir(), 'svc.sqlite')}`);
});

t.test('a read past its store time is stopped by the engine: store-time-limit, nothing changed', async (t) => {
  for (const uri of ['sqlite::memory:', `sqlite:${join(t.testdir(), 'svc.sqlite')}`]) {
    const store = await openSqliteStore(uri, '');
    t.teardown(() => store.close());
    const model = makeModel('notes', { text: 'text' });
    // 2,000 members of 1 KB: a case-insensitive scan of them takes far longer than 10 µs.
    await Promise.all(Array.from({ length: 2000 }, (_, i) => store.insert(model, { text: `Note ${i} `.padEnd(1000, 'x') }, stamp(i))));
    const heavy = [filter('text', 'icontains', 'zzz')];
    const where = uri.endsWith(':memory:') ? 'on the event loop' : 'in a reader thread';
    await t.rejects(store.count(model, heavy, { timeMs: 0.01 }), { code: 'store-time-limit', status: 503 }, `a count ${where}`);
    await t.rejects(collect(store.list(model, query({ filters: heavy }), { timeMs: 0.01 })), { code: 'store-time-limit' }, `a list ${where}`);
    // A scan that no other condition narrows (ne) checks its deadline every 16 ids too.
    await t.rejects(store.count(model, [filter('text', 'ne', 'x')], { timeMs: 0.01 }), { code: 'store-time-limit' }, `a count without a JS condition ${where}`);
    t.equal(await store.count(model, []), 2000, 'the data is as it was');
    t.equal(await store.count(model, heavy), 0, 'and the same query with its time is answered');
    t.equal((await collect(store.list(model, query({ filters: [filter('text', 'icontains', 'NOTE 1999 ')] })))).length, 1);
  }
});

t.test('SQL translation binds every value', async (t) => {
  const shape: TableShape = {
    table: 'things',
    columns: [
      { field: 'id', column: 'id', type: 'auto' },
      { field: 'updated', column: 'updated', type: 'date-time' },
      { field: 's', column: 's', type: 'string' },
      { field: 'S', column: 'S~2', type: 'string' },
      { field: 'b', column: 'b', type: 'boolean' },
      { field: 'd', column: 'd', type: 'date' },
    ],
  };
  const q = (p: Partial<Query>): Query => query(p);

  t.equal(quoteIdent('a"b'), '"a""b"', 'quotes are doubled');
  t.throws(() => quoteIdent(''));
  t.throws(() => quoteIdent('a\0b'));

  t.equal(prefixSuccessor('abc'), 'abd');
  t.equal(prefixSuccessor('a😀'), 'a😁', 'increments the last code point, not UTF-16 unit');
  t.equal(prefixSuccessor('a\u{d7ff}'), 'a\u{e000}', 'skips the surrogate range');
  t.equal(prefixSuccessor('a\u{10ffff}'), 'b', 'drops a maximal last code point');
  t.equal(prefixSuccessor('\u{10ffff}'), undefined);
  t.equal(prefixSuccessor(''), undefined);

  const hostile = "x'); DROP TABLE things; --";
  const all = selectSql(shape, q({ filters: [filter('s', 'exact', hostile), filter('S', 'contains', '%')], order: order('-S') }));
  t.notMatch(all.sql, 'DROP', 'values never reach the SQL text');
  t.notMatch(all.sql, '%');
  t.same(all.params, [hostile, '%']);
  t.match(all.sql, /"S~2"/, 'the mapped column is used');
  t.match(all.sql, / ORDER BY "S~2" DESC, "id"$/, 'ties broken by id ascending');

  t.same(selectSql(shape, q({ filters: [filter('b', 'exact', true)] })).params, [1], 'booleans are bound as 1');
  t.same(selectSql(shape, q({ filters: [filter('b', 'in', [false, true])] })).params, [0, 1]);
  // The count is written into the SQL (a bound LIMIT costs more per run, sql.ts), the start bound.
  const page = selectSql(shape, q({ start: 5, count: 7 }));
  t.same(page.params, [5]);
  t.match(page.sql, / LIMIT 7 OFFSET \?$/);
  t.same(selectSql(shape, q({ start: 5 })).params, [5]);
  t.match(selectSql(shape, q({ start: 5 })).sql, / LIMIT -1 OFFSET \?$/, 'no count: LIMIT -1');
  t.throws(() => selectSql(shape, q({ start: 0, count: 1.5 })), /integer/, 'a count that is not an integer never reaches the SQL');
  t.throws(() => selectSql(shape, q({ start: 0, count: '1; DROP TABLE t' as unknown as number })), /integer/);
  t.notMatch(selectSql(shape, q({})).sql, 'LIMIT', 'no slice: no LIMIT');
  t.match(selectSql(shape, q({ order: order('s', 'id', 'd') })).sql, / ORDER BY "s", "id"$/, 'nothing after id');

  // Every query's scan checks its deadline (src/store/sqlite/deadline.ts) on every 16th id, first.
  const CHECK = '(("id" & 15) <> 0 OR svc_deadline())';
  const starts = countSql(shape, [filter('s', 'startswith', 'ab%')]);
  const utf8 = (s: string) => new TextEncoder().encode(s);
  t.equal(starts.sql, `SELECT count(*) FROM "things" WHERE ${CHECK} AND ("s" >= ? AND "s" < ?)`);
  t.same(starts.params, ['ab%', 'ab&'], 'the range of texts with the prefix, which the index serves');
  const top = countSql(shape, [filter('s', 'startswith', '\u{10FFFF}')]);
  t.equal(top.sql, `SELECT count(*) FROM "things" WHERE ${CHECK} AND ("s" >= ? AND substr(CAST("s" AS BLOB), 1, ?) = ?)`, 'no successor: the range has no end, the prefix bounds it');
  t.same(countSql(shape, [filter('s', 'istartswith', 'ÉC')]).params, [3, utf8('éc')], 'folded in JS, no range');
  t.same(countSql(shape, [filter('s', 'endswith', '😀x')]).params, [-5, utf8('😀x')], 'lengths in UTF-8 bytes');
  t.same(countSql(shape, [filter('d', 'year', 999)]).params, ['0999-', '0999.']);
  t.same(countSql(shape, [filter('d', 'month', 3)]).params, ['03']);
  t.equal(countSql(shape, [filter('d', 'year', 10000)]).sql, `SELECT count(*) FROM "things" WHERE ${CHECK} AND (0)`);
  t.equal(countSql(shape, [filter('s', 'in', [])]).sql, `SELECT count(*) FROM "things" WHERE ${CHECK} AND (0)`);
  t.match(selectSql(shape, q({})).sql, `FROM "things" WHERE ${CHECK} ORDER BY`, 'a scan checks its deadline even without filters');
  t.throws(() => countSql(shape, [filter('nope', 'exact', 1)]), /no field nope/);
});

t.test('the database is configured for durability', async (t) => {
  const db = openDatabase(join(t.testdir(), 'deep', 'er', 'd.sqlite'));
  t.teardown(() => db.close());
  const pragma = (name: string) => Object.values(db.prepare(`PRAGMA ${name}`).get()!)[0];
  t.equal(pragma('journal_mode'), 'wal');
  t.equal(pragma('synchronous'), 2, 'synchronous = FULL');
  t.equal(pragma('busy_timeout'), 5000);
  t.equal(pragma('trusted_schema'), 0);
  t.equal(db.prepare("SELECT svc_lower('ÀÉÎ Σ') AS x").get()!.x, 'àéî σ', 'Unicode lower-casing');
});

t.test('opening a database is tried again while SQLite answers busy at once', async (t) => {
  const busy = () => Object.assign(new Error('database is locked'), { errcode: 5 });
  let calls = 0;
  t.equal(await retryWhileBusy(() => (++calls < 3 ? (() => { throw busy(); })() : 'open')), 'open');
  t.equal(calls, 3, 'two busy answers, then the open');

  calls = 0;
  await t.rejects(retryWhileBusy(() => { calls++; throw new Error('file is not a database'); }), /not a database/);
  t.equal(calls, 1, 'any other error is not tried again');

  const t0 = performance.now();
  await t.rejects(retryWhileBusy(() => { throw busy(); }, 100), /database is locked/);
  const took = performance.now() - t0;
  // 100 ms of pauses at most; the margin is for a machine whose cores are busy.
  t.ok(took < 1000, `busy for good: given up after the bound, not after the default 5 s (${took.toFixed(0)} ms)`);
});

t.test('database file per app', async (t) => {
  t.equal(sqlitePath('sqlite::memory:', 'acme'), ':memory:');
  t.equal(sqlitePath('sqlite:./data/svc.sqlite', ''), './data/svc.sqlite');
  t.equal(sqlitePath('sqlite:./data/svc.sqlite', 'acme'), 'data/svc.acme.sqlite');
  t.equal(sqlitePath('sqlite:/var/db/store', 'a-1'), '/var/db/store.a-1.sqlite');
  t.throws(() => sqlitePath('sqlite:./data/svc.sqlite', '../x'));
  t.throws(() => sqlitePath('sqlite:', ''));
  t.throws(() => sqlitePath('mongodb://x', ''));

  const dir = t.testdir();
  const model = makeModel('notes', { text: 'text' });
  const a = await openSqliteStore(`sqlite:${join(dir, 'svc.sqlite')}`, 'a');
  const b = await openSqliteStore(`sqlite:${join(dir, 'svc.sqlite')}`, 'b');
  await a.ensure(model);
  await b.ensure(model);
  await a.insert(model, { text: 'for a' }, stamp(1));
  t.equal(await b.count(model, []), 0, 'tenants share no data');
  await a.close();
  await b.close();
  t.ok(existsSync(join(dir, 'svc.a.sqlite')) && existsSync(join(dir, 'svc.b.sqlite')));
});

t.test('data persists across reopen; ids continue', async (t) => {
  const uri = `sqlite:${join(t.testdir(), 'p.sqlite')}`;
  const model = makeModel('notes', { text: 'text', n: 'integer' });
  let store = await openSqliteStore(uri, '');
  await store.ensure(model);
  for (let i = 1; i <= 3; i++) await store.insert(model, { text: `note ${i}`, n: i }, stamp(i));
  await store.delete(model, 3);
  await store.close();

  store = await openSqliteStore(uri, '');
  t.teardown(() => store.close());
  await store.ensure(model);
  t.same(await store.get(model, 2), { id: 2, updated: stamp(2), text: 'note 2', n: 2 });
  t.equal(await store.count(model, []), 2);
  t.equal((await store.insert(model, { n: 4 }, stamp(4))).id, 4, 'the deleted highest id is not reused after reopen');
  const grown = makeModel('notes', { text: 'text', n: 'integer', tag: 'string' });
  await store.ensure(grown);
  await store.close();

  store = await openSqliteStore(uri, '');
  await store.ensure(grown);
  t.same(await store.insert(grown, { tag: 'x' }, stamp(5)), { id: 5, updated: stamp(5), tag: 'x' });
  t.same((await collect(store.list(grown, query({ filters: [filter('tag', 'isnull', false)] })))).map((m) => m.id), [5]);
});

t.test('an unfiltered count reads the kept count, which triggers maintain', async (t) => {
  const path = join(t.testdir(), 'c.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  const model = makeModel('notes', { n: 'integer' });
  await store.ensure(model);
  for (let i = 0; i < 3; i++) await store.insert(model, { n: i }, stamp(i));

  const other = openDatabase(path);
  t.teardown(() => other.close());
  other.prepare("INSERT INTO notes (updated, n) VALUES ('x', 9)").run();
  t.equal(await store.count(model, []), 4, 'an insert by another connection is counted by the trigger');
  other.prepare('DELETE FROM notes WHERE n < 2').run();
  t.equal(await store.count(model, []), 2, 'and a delete');
  other.prepare("UPDATE svc_collections SET count = 42 WHERE name = 'notes'").run();
  t.equal(await store.count(model, []), 42, 'the count comes from svc_collections, not from count(*)');
  t.equal(await store.count(model, [filter('n', 'gte', 0)]), 2, 'a filtered count counts rows');
});

t.test('group commit: writes are acknowledged once committed, and share commits', async (t) => {
  const path = join(t.testdir(), 'g.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  const model = makeModel('notes', { n: 'integer' });
  await store.ensure(model);
  const other = new DatabaseSync(path, { readOnly: true });
  t.teardown(() => other.close());
  const committed = () => other.prepare('SELECT count(*) AS n FROM notes').get()!.n;
  const commits = new Set<number>();
  const onCommit = (p: string, commit: number) => p === path && commits.add(commit);
  writerEvents.on('commit', onCommit);
  t.teardown(() => writerEvents.off('commit', onCommit));

  // Each write, when acknowledged, is already committed (another connection reads it).
  const seen: number[] = [];
  const writes = Array.from({ length: 100 }, (_, n) =>
    store.insert(model, { n }, stamp(n)).then((m) => {
      seen.push(other.prepare('SELECT count(*) AS n FROM notes WHERE id = ?').get(m.id)!.n as number);
      return m;
    }),
  );
  t.same((await Promise.all(writes)).map((m) => m.id), Array.from({ length: 100 }, (_, n) => n + 1), 'ids in the order issued');
  t.same(seen, Array.from({ length: 100 }, () => 1), 'every write is committed when it is acknowledged');
  t.ok(commits.size >= 1 && commits.size <= 25, `100 writes issued at once share commits (${commits.size})`);
  t.equal(committed(), 100);

  const failing = store.insert(model, { n: 1 }, null as unknown as string);
  const fine = store.insert(model, { n: 2 }, stamp(2));
  await t.rejects(failing, /NOT NULL/, 'a failing write is refused');
  t.equal((await fine).id, 101, 'without failing the others of its commit');
  t.equal(committed(), 101);
  t.equal(await store.count(model, []), 101, 'a read sees every acknowledged write');

  const last = store.insert(model, { n: 4 }, stamp(4));
  await store.close();
  t.equal((await last).id, 102, 'close acknowledges the writes issued before it');
  t.equal(committed(), 102);
});

t.test('a read started after a write was acknowledged sees it, while a list streams to a slow client', async (t) => {
  const store = await openSqliteStore(`sqlite:${join(t.testdir(), 'svc.sqlite')}`, '');
  t.teardown(() => store.close());
  const model = makeModel('notes', { text: 'text' });
  for (let i = 0; i < 100; i++) await store.insert(model, { text: `n${i}` }, stamp(i));
  // An unpaged list streams, holding its read snapshot until the client has taken every row.
  const stream = store.listJson(model, query({}))[Symbol.asyncIterator]();
  await stream.next();
  const m = await store.insert(model, { text: 'new' }, stamp(1000));
  t.ok(await store.get(model, m.id), 'get after the acknowledgement');
  t.equal(await store.count(model, []), 101, 'count after the acknowledgement');
  t.same(await store.replace(model, m.id, { text: 'changed' }, stamp(1001), stamp(1000)), { ok: true, value: { id: m.id, updated: stamp(1001), text: 'changed' } }, 'a conditional write checks against it');
  // The model gains a field: its migration takes the write lock on the main connection.
  const wider = makeModel('notes', { text: 'text', tag: 'string' });
  t.equal((await store.insert(wider, { text: 'x', tag: 'y' }, stamp(1002))).id, 102, 'a migration');
  let rest = 1;
  for (let r = await stream.next(); !r.done; r = await stream.next()) rest++;
  t.equal(rest, 100, 'the stream reads its own snapshot to the end');
});

t.test('a schema change waits for another connection\'s write lock without blocking the event loop', async (t) => {
  const path = join(t.testdir(), 'lock.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  await store.insert(makeModel('notes', { text: 'text' }), { text: 'a' }, stamp(1));
  const holder = new DatabaseSync(path);
  t.teardown(() => holder.close());
  holder.exec('BEGIN IMMEDIATE');
  let settled = false;
  const changed = store.ensure(makeModel('notes', { text: 'text', tag: 'string' })).finally(() => (settled = true));
  // SQLite's busy handler would hold the event loop here until the lock was free (or 5 s).
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  t.notOk(settled, 'the change waits for the lock');
  holder.exec('COMMIT');
  await changed;
  t.same(await store.insert(makeModel('notes', { text: 'text', tag: 'string' }), { text: 'b', tag: 'x' }, stamp(2)), { id: 2, updated: stamp(2), text: 'b', tag: 'x' }, 'then it is made');
});

t.test('in memory, the reading connection writes too: a read commits the writes issued before it', async (t) => {
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  const model = makeModel('notes', { n: 'integer' });
  const pending = store.insert(model, { n: 3 }, stamp(3));
  t.equal(await store.count(model, []), 1);
  t.equal((await pending).id, 1);
  const failing = store.insert(model, { n: 1 }, null as unknown as string);
  const fine = store.insert(model, { n: 2 }, stamp(2));
  await t.rejects(failing, /NOT NULL/, 'a failing write is refused');
  t.equal((await fine).id, 2, 'without failing the others of its commit');
});

t.test('model and field names that SQLite reserves or would confuse', async (t) => {
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  const names = ['svc_collections', 'svc_fields', 'sqlite_master', 'SQLITE_x', 'a"b', 'x; DROP TABLE y'];
  for (const [i, name] of names.entries()) {
    const model = makeModel(name, { rowid: 'integer', 'q"uote': 'string', select: 'string' });
    await store.ensure(model);
    t.same(await store.insert(model, { rowid: i, 'q"uote': 'x', select: name }, stamp(i)), {
      id: 1,
      updated: stamp(i),
      rowid: i,
      'q"uote': 'x',
      select: name,
    });
    t.same((await collect(store.list(model, query({ filters: [filter('q"uote', 'exact', 'x')], order: order('select') })))).length, 1);
  }
  for (const [i, name] of names.entries()) {
    t.same((await store.get(makeModel(name, { rowid: 'integer' }), 1))?.rowid, i, `${name} kept its own data`);
  }
});

t.test('a field whose type changed reads in its new type', async (t) => {
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  await store.ensure(makeModel('m', { v: 'integer' }));
  await store.insert(makeModel('m', { v: 'integer' }), { v: 12 }, stamp(1));
  const asText = makeModel('m', { v: 'string' });
  await store.ensure(asText);
  t.same(await store.get(asText, 1), { id: 1, updated: stamp(1), v: '12' });
});

t.test('close', async (t) => {
  const model = makeModel('notes', { n: 'integer' });
  const store = await openSqliteStore('sqlite::memory:', '');
  await store.ensure(model);
  await store.insert(model, { n: 1 }, stamp(1));
  await store.close();
  await store.close();
  await t.rejects(store.get(model, 1), 'a closed store refuses work');
  await t.rejects(store.insert(model, {}, stamp(2)));
  const fresh = await openSqliteStore('sqlite::memory:', '');
  await fresh.ensure(model);
  t.equal(await fresh.count(model, []), 0, 'in-memory data vanishes');
  await fresh.close();
});

t.test('an abandoned iteration ends its read transaction', async (t) => {
  const path = join(t.testdir(), 'i.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  const model = makeModel('notes', { n: 'integer' });
  await store.ensure(model);
  for (let i = 0; i < 10; i++) await store.insert(model, { n: i }, stamp(i));
  const other = new DatabaseSync(path);
  t.teardown(() => other.close());
  // A TRUNCATE checkpoint is busy while any connection still reads from the write-ahead log.
  const busy = () => (other.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get()!.busy as number) === 1;

  const rows = store.list(model, query())[Symbol.asyncIterator]();
  await rows.next();
  await store.insert(model, { n: 99 }, stamp(99));
  t.ok(busy(), 'busy while the iteration is open (so this test can fail)');
  await rows.return?.();
  t.notOk(busy(), 'released after return()');

  for await (const m of store.list(model, query({ order: order('-n') }))) {
    await store.insert(model, { n: 100 }, stamp(100));
    t.ok(busy());
    if (m) break;
  }
  t.notOk(busy(), 'released after break');
});

t.test('large collections', async (t) => {
  // 50,000 members: their rows read with one all() take 14 to 16 MiB of heap (measured), seven
  // times the bound below.
  const N = 50_000;
  // A file: a list of `sqlite::memory:` is read whole (its one connection also writes, README
  // "Storage"); a file's streams from a connection of its own.
  const store = await openSqliteStore(`sqlite:${join(t.testdir(), 'big.sqlite')}`, '');
  t.teardown(() => store.close());
  const big = makeModel('big', { s: 'string', n: 'integer' });
  await store.ensure(big);
  const data = (i: number) => ({ s: `s${(i * 7919) % N}`, n: (i * 104729) % 1000 });
  for (let i = 0; i < N; i += 1000) {
    await Promise.all(Array.from({ length: 1000 }, (_, j) => store.insert(big, data(i + j), stamp(i + j))));
  }
  t.equal(await store.count(big, []), N);

  t.test('an unpaged list streams instead of loading every row first', async (t) => {
    // Measured in heap, not time: 50,000 rows held at once are megabytes, the first of a stream is not.
    const members = store.list(big, query({ order: order('s') }))[Symbol.asyncIterator]();
    const heapBefore = process.memoryUsage().heapUsed;
    let r = await members.next();
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    let n = 0;
    for (; !r.done; r = await members.next()) n++;
    t.equal(n, N);
    t.ok(heapGrowth < 2 * 1024 * 1024, `the heap grew by ${(heapGrowth / 1024).toFixed(0)} KiB until the first member`);
  });
  // Whether a first page costs the same on a large collection as on a small one is a benchmark's question
  // (`npm run bench`, groups scale-*), not a timed test's; the query plans are checked below.
});

/**
 * SQLite's plan for the SELECT of a query on `model`'s table, as one line. The table and its
 * columns are named as the model and its fields (true of a fresh database without clashing names).
 */
function queryPlan(db: DatabaseSync, model: Model): (q: Partial<Query>) => string {
  const shape: TableShape = {
    table: model.name,
    columns: [
      { field: 'id', column: 'id', type: 'auto' },
      { field: 'updated', column: 'updated', type: 'date-time' },
      ...model.declared.map((f) => ({ field: f.name, column: f.name, type: f.type })),
    ],
  };
  return (q) => {
    const { sql, params } = selectSql(shape, query(q));
    return db
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((r) => r.detail)
      .join('; ');
  };
}

t.test('indexes serve a first page in any field order', async (t) => {
  const path = join(t.testdir(), 'x.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  const model = makeModel('employees', { name: 'string', age: 'integer', born: 'date', seen: 'date-time', ok: 'boolean', score: 'float' });
  await store.ensure(model);
  // Issued at once: they share commits, and take their ids in the order issued (the group commit test).
  await Promise.all(Array.from({ length: 200 }, (_, i) => store.insert(model, { name: `n${i}`, age: i % 50, born: '2000-01-01', ok: i % 2 === 0 }, stamp(i))));
  const db = openDatabase(path);
  t.teardown(() => db.close());
  const plan = queryPlan(db, model);
  t.notMatch(plan({ count: 20 }), 'TEMP B-TREE', 'default order: the table in id order');
  for (const field of ['updated', 'name', 'age', 'born', 'seen', 'ok', 'score']) {
    const asc = plan({ order: order(field), count: 20 });
    t.match(asc, `USING INDEX employees/${field}`, `${field} ascending: ${asc}`);
    t.notMatch(asc, 'TEMP B-TREE', `${field} ascending: no sort`);
    const desc = plan({ order: order(`-${field}`), count: 20 });
    t.match(desc, `USING INDEX employees/${field}`, `${field} descending: ${desc}`);
    // The index is read backwards; only ties (equal values) are sorted again by id ascending.
    t.notMatch(desc, 'USE TEMP B-TREE FOR ORDER BY', `${field} descending: no full sort`);
  }
  t.match(plan({ filters: [filter('name', 'startswith', 'n1')] }), /SEARCH employees USING INDEX employees\/name \(name>\? AND name<\?\)/);
  t.match(plan({ filters: [filter('born', 'year', 2000)] }), /SEARCH employees USING INDEX employees\/born/);
  t.match(plan({ filters: [filter('age', 'exact', 3)] }), /SEARCH employees USING INDEX employees\/age \(age=\?\)/);
  t.match(plan({ filters: [filter('id', 'in', [1, 2])] }), /SEARCH employees USING INTEGER PRIMARY KEY/);
});

t.test('a field declared "index": false has no index: its orders and filters read every member; declared again, it has one', async (t) => {
  const path = join(t.testdir(), 'x.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  const indexed = makeModel('notes', { tag: 'string', n: 'integer' });
  const unindexed = makeModel('notes', { tag: 'string', n: { type: 'integer', index: false } });
  const db = openDatabase(path);
  t.teardown(() => db.close());
  const indexes = () => db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'notes' ORDER BY name").all().map((r) => r.name);
  await store.ensure(indexed);
  t.same(indexes(), ['notes/n', 'notes/tag', 'notes/updated']);
  await store.ensure(unindexed);
  t.same(indexes(), ['notes/tag', 'notes/updated'], 'dropped');
  for (let i = 0; i < 5; i++) await store.insert(unindexed, { tag: `t${i}`, n: 4 - i }, stamp(i));
  const plan = queryPlan(db, unindexed);
  t.match(plan({ order: order('n'), count: 2 }), 'USE TEMP B-TREE FOR ORDER BY', 'an order on it sorts');
  t.match(plan({ filters: [filter('n', 'exact', 3)] }), /SCAN notes/, 'a filter on it scans');
  t.same((await collect(store.list(unindexed, query({ order: order('n'), count: 2 })))).map((m) => m.id), [5, 4], 'and answers the same');
  // A changed model file is a new Model object.
  await store.ensure(makeModel('notes', { tag: 'string', n: 'integer' }));
  t.same(indexes(), ['notes/n', 'notes/tag', 'notes/updated'], 'created again');
  t.match(plan({ filters: [filter('n', 'exact', 3)] }), /USING INDEX notes\/n/);
});

t.test('declared compound indexes: created, read from the index alone, the same answers, dropped when no longer declared', async (t) => {
  const path = join(t.testdir(), 'x.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  const fields = { name: 'string', born: 'date', seen: 'date-time', level: { type: 'integer', index: false } } as const;
  const plain = makeModel('people', fields);
  const indexed = makeModel('people', fields, { indexes: [indexDef('born__day', 'name'), indexDef('seen__month', 'level')] });
  const db = openDatabase(path);
  t.teardown(() => db.close());
  const indexes = () => db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'people' ORDER BY name").all().map((r) => r.name);
  await store.ensure(plain);
  // Issued at once: they share commits, and take their ids in the order issued (the group commit test).
  await Promise.all(
    Array.from({ length: 300 }, (_, i) => {
      const day = String(1 + (i % 28)).padStart(2, '0');
      const month = String(1 + (i % 12)).padStart(2, '0');
      return store.insert(plain, { name: `${'abcde'[i % 5]}${i}`, born: `1990-${month}-${day}`, seen: `2025-${month}-${day}T10:00:00.000Z`, level: i % 7 }, stamp(i));
    }),
  );
  // Members without the fields: their parts are NULL in the index, as in the condition.
  await Promise.all(Array.from({ length: 3 }, (_, i) => store.insert(plain, { name: `a-none${i}` }, stamp(300 + i))));
  const queries: Partial<Query>[] = [
    { filters: [filter('born', 'day', 5), filter('name', 'startswith', 'a')], order: order('name'), count: 20 },
    { filters: [filter('born', 'day', 5)], order: order('-name') },
    { filters: [filter('born', 'day', 5), filter('name', 'gte', 'c')] },
    { filters: [filter('seen', 'month', 3), filter('level', 'in', [1, 2])], order: order('level') },
    { filters: [filter('seen', 'month', 3)], order: order('seen'), start: 3, count: 5 },
    { filters: [filter('born', 'month', 3), filter('born', 'day', 3)] },
  ];
  const answers = async (model: Model) => Promise.all(queries.map(async (q) => ({ ids: await ids(store, model, q), total: await store.count(model, q.filters ?? []) })));
  const before = await answers(plain);
  t.same(before.map((a) => a.ids.length > 0), queries.map(() => true), 'every query matches some members');

  await store.ensure(indexed);
  t.same(indexes(), ['people/+born__day,name', 'people/+seen__month,level', 'people/born', 'people/name', 'people/seen', 'people/updated']);
  t.same(await answers(indexed), before, 'the same members, order and totals with the indexes');
  const plan = queryPlan(db, indexed);
  t.match(plan(queries[0]!), /SEARCH people USING (COVERING )?INDEX people\/\+born__day,name \(<expr>=\? AND name>\? AND name<\?\)/, 'day and name prefix from the index alone');
  t.notMatch(plan(queries[0]!), 'TEMP B-TREE', 'in name order without a sort');
  t.match(plan({ filters: [filter('seen', 'month', 3), filter('level', 'exact', 2)] }), /USING (COVERING )?INDEX people\/\+seen__month,level \(<expr>=\? AND level=\?\)/, 'an unindexed field inside a compound index');
  t.match(plan({ filters: [filter('born', 'day', 5)] }), /USING (COVERING )?INDEX people\/\+born__day,name \(<expr>=\?\)/, 'the part alone');

  // Which queries may test every member (and so go to a reader thread past their slice).
  const by = { unindexed: new Set(['level']), leading: new Set(['born__day', 'seen__month']) };
  t.equal(scans({ filters: [filter('born', 'day', 5)] }, by), false, 'a part that leads a declared index is read from it');
  t.equal(scans({ filters: [filter('born', 'month', 5)] }, by), true, 'another part of the field is not');
  t.equal(scans({ filters: [filter('born', 'day', 5), filter('name', 'contains', 'x')] }, by), true, 'nor a condition no index serves');
  t.equal(scans({ filters: [filter('level', 'exact', 1)] }, by), true, 'an unindexed field that leads no index');
  t.equal(scans({ filters: [filter('level', 'exact', 1)] }, { ...by, leading: new Set(['level']) }), false, 'an unindexed field that leads a declared index');
  t.equal(scans({ filters: [filter('born', 'day', 5)] }, { ...by, leading: new Set() }), true, 'no declared index: a part scans');
  t.equal(scans({ filters: [filter('name', 'startswith', 'a')] }, by), false, 'startswith reads its range');

  // Removed from the model file (a new Model object): dropped, and the part's filter scans again.
  await store.ensure(makeModel('people', fields, { indexes: [indexDef('seen__month', 'level')] }));
  t.same(indexes(), ['people/+seen__month,level', 'people/born', 'people/name', 'people/seen', 'people/updated'], 'the undeclared one dropped');
  await store.ensure(makeModel('people', fields));
  t.same(indexes(), ['people/born', 'people/name', 'people/seen', 'people/updated']);
  t.notMatch(queryPlan(db, plain)({ filters: [filter('born', 'day', 5)] }), /\+born__day/);
  t.same(await answers(plain), before);
});

t.test('declared indexes on fields whose names differ only in case are two indexes (SQLite compares index names ignoring case)', async (t) => {
  const path = join(t.testdir(), 'x.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  const fields = { Name: 'string', name: 'string', born: 'date' } as const;
  const db = openDatabase(path);
  t.teardown(() => db.close());
  const compound = () => db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name LIKE 'people/+%' ORDER BY name").all().map((r) => r.sql);
  await store.ensure(makeModel('people', fields, { indexes: [indexDef('born__day', 'Name'), indexDef('born__day', 'name')] }));
  t.same(compound(), [
    'CREATE INDEX "people/+born__day,Name" ON "people" (substr("born", 9, 2), "Name", "id")',
    'CREATE INDEX "people/+born__day,name~2" ON "people" (substr("born", 9, 2), "name~2", "id")',
  ]);
  await store.ensure(makeModel('people', fields, { indexes: [indexDef('born__day', 'Name')] }));
  await store.ensure(makeModel('people', fields, { indexes: [indexDef('born__day', 'name')] }));
  t.same(compound(), ['CREATE INDEX "people/+born__day,name~2" ON "people" (substr("born", 9, 2), "name~2", "id")'], 'one replaced by the other');
});

t.test('a field whose type changes between numbers and text moves to a column of its new type', async (t) => {
  const path = join(t.testdir(), 'x.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  const db = new DatabaseSync(path, { readOnly: true });
  t.teardown(() => db.close());
  const columns = () => db.prepare("SELECT name, type FROM pragma_table_info('things') WHERE name NOT IN ('id', 'updated', '~json', '~shape')").all().map((r) => `${r.name} ${r.type}`);
  const indexes = () => db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'things' ORDER BY name").all().map((r) => r.name);

  // Written as numbers, then as text under the new type, then the store reopened (the first
  // conversion's members are of an older shape than the second's).
  const before = makeModel('things', { code: 'integer', n: 'integer' });
  for (const code of [12, 9, 100, 123]) await store.insert(before, { code, n: code }, stamp(code));
  const after = makeModel('things', { code: 'string', n: 'integer' }, { indexes: [indexDef('code', 'n')] });
  await store.ensure(after);
  t.same(columns(), ['n INTEGER', 'code~2 TEXT'], 'the numbers column replaced by a text one');
  t.same(indexes(), ['things/+code~2,n', 'things/code~2', 'things/n', 'things/updated'], 'its indexes on the new column');
  for (const code of ['0123', 'abc', '12', '1.50', '1e5', 'a\0b']) await store.insert(after, { code, n: 0 }, stamp(0));
  const codes = async (q: Partial<Query>) => (await collect(store.list(after, query(q)))).map((m) => m.code);
  t.same(await codes({ filters: [filter('code', 'exact', '12')] }), ['12', '12'], 'equal as text: "0123" is not 12');
  t.same(await codes({ order: order('code') }), ['0123', '1.50', '100', '12', '12', '123', '1e5', '9', 'a\0b', 'abc'], 'ordered as text');
  t.same(await codes({ filters: [filter('code', 'startswith', '1')] }), ['12', '100', '123', '12', '1.50', '1e5'], 'startswith: the old members too');
  t.same(await codes({ filters: [filter('code', 'gt', '5')] }), ['9', 'abc', 'a\0b'], 'compared as text');
  t.equal(scans({ filters: [filter('code', 'startswith', '1')] }, { unindexed: new Set(), leading: new Set() }), false, 'startswith reads its range');
  const listed = await collect(store.list(after, query({})));
  t.same(await Promise.all(listed.map((m) => store.get(after, m.id))), listed, 'a member reads the same by id as in a list');

  // And back: each value as reads gave it in the new type; text that is no number is absent.
  const back = makeModel('things', { code: 'float', n: 'integer' });
  await store.ensure(back);
  t.same(columns(), ['n INTEGER', 'code REAL'], 'a numbers column again, the text one dropped');
  const values = (await collect(store.list(back, query({})))).map((m) => m.code ?? null);
  t.same(values, [12, 9, 100, 123, 123, null, 12, 1.5, 100000, null]);
  t.same((await collect(store.list(back, query({ filters: [filter('code', 'gte', 100)], order: order('code') })))).map((m) => m.code), [100, 123, 123, 100000], 'compared and ordered as numbers');
  t.same(await ids(store, back, { filters: [filter('code', 'exact', 12)] }), [1, 7]);
  const reopened = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => reopened.close());
  t.same(await collect(reopened.list(back, query({}))), await collect(store.list(back, query({}))), 'the same after a restart, with nothing left to convert');
});

t.test('a database that kept a text field in a column made for numbers: its members of the current shape keep their text', async (t) => {
  // As stores before this migration left it: the field became text, its column stayed INTEGER, and
  // members written since hold their text in the JSON text (the column, "0123" as 123).
  const path = join(t.testdir(), 'x.sqlite');
  const first = await openSqliteStore(`sqlite:${path}`, '');
  await first.insert(makeModel('things', { code: 'integer' }), { code: 7 }, stamp(0));
  await first.close();
  const after = makeModel('things', { code: 'string' });
  const db = new DatabaseSync(path);
  const shape = Number(db.prepare("INSERT INTO svc_shapes (collection, signature) VALUES (1, 'code:string')").run().lastInsertRowid);
  const insert = db.prepare('INSERT INTO things (updated, code, "~json", "~shape") VALUES (?, ?, ?, ?)');
  for (const code of ['0123', '1e5', 'a\0b']) insert.run(stamp(1), code, JSON.stringify({ code }), shape);
  t.same(db.prepare("SELECT typeof(code) AS t FROM things ORDER BY id").all().map((r) => r.t), ['integer', 'integer', 'integer', 'text'], 'as such a store held them');
  db.close();

  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  t.same((await collect(store.list(after, query({ order: order('code') })))).map((m) => m.code), ['0123', '1e5', '7', 'a\0b']);
  t.same(await ids(store, after, { filters: [filter('code', 'exact', '123')] }), [], '"0123" is not "123"');
  t.same(await ids(store, after, { filters: [filter('code', 'startswith', '1e')] }), [3]);
});

t.test('a type change within numbers or within text keeps the column', async (t) => {
  const path = join(t.testdir(), 'x.sqlite');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  await store.insert(makeModel('things', { a: 'integer', b: 'string' }), { a: 3, b: '2025-01-02' }, stamp(0));
  await store.ensure(makeModel('things', { a: 'boolean', b: 'date' }));
  const db = new DatabaseSync(path, { readOnly: true });
  t.teardown(() => db.close());
  t.same(db.prepare("SELECT name, type FROM pragma_table_info('things') WHERE name IN ('a', 'b')").all().map((r) => `${r.name} ${r.type}`), ['a INTEGER', 'b TEXT'], 'the same columns');
  const got = await store.get(makeModel('things', { a: 'boolean', b: 'date' }), 1);
  // 3 is true now, which reads back as 1: another value, so the member is stamped again.
  t.match(got, { id: 1, a: true, b: '2025-01-02' });
  t.ok(got!.updated > stamp(0), 'stamped again');
});

t.test('acknowledged writes survive SIGKILL', async (t) => {
  const dir = t.testdir();
  const uri = `sqlite:${join(dir, 'crash.sqlite')}`;
  const model = makeModel('events', { n: 'integer', text: 'text' });
  const child = `
    const { openSqliteStore } = await import(${JSON.stringify(SQLITE_MODULE)});
    const model = ${JSON.stringify({ name: 'events', declared: model.declared, indexes: [] })};
    model.fields = new Map(model.declared.map((f) => [f.name, f]));
    const store = await openSqliteStore(${JSON.stringify(uri)}, '');
    await store.ensure(model);
    for (let n = 0; ; n += 10) {
      // Bursts of concurrent writes, each acknowledged on its own.
      await Promise.all(Array.from({ length: 10 }, (_, i) =>
        store.insert(model, { n: n + i, text: 'x'.repeat(n % 500) }, new Date().toISOString())
          .then((m) => process.stdout.write(m.id + '\\n'))));
    }`;
  // A file, not `-e`: the store's writer thread inherits the process's flags, and a worker refuses `--input-type`.
  const script = join(dir, 'child.mjs');
  writeFileSync(script, child);
  const proc = spawn(process.execPath, ['--no-warnings', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acked = await new Promise<number[]>((resolve, reject) => {
    let out = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      out += chunk;
      const lines = out.split('\n');
      if (lines.length > 300) {
        proc.kill('SIGKILL');
        resolve(lines.slice(0, -1).map(Number));
      }
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited with ${code}`));
    });
  });
  await new Promise((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve(null) : proc.on('exit', resolve)));
  const store = await openSqliteStore(uri, '');
  t.teardown(() => store.close());
  await store.ensure(model);
  const stored = new Set((await collect(store.list(model, query()))).map((m: Member) => m.id));
  const lost = acked.filter((id) => !stored.has(id));
  t.same(lost, [], `all ${acked.length} acknowledged inserts are there`);
  t.equal(await store.count(model, []), stored.size, 'the kept count matches the rows');
});

t.test('the writer thread ends when no store uses it, and the next write starts another', async (t) => {
  // The file's own writer-thread store closed (it kept the thread for every subtest before): no
  // store that wrote is open now.
  await writer.close();
  t.equal(writerThread(), undefined, 'no thread before the first write');
  const model = makeModel('notes', { n: 'integer' });
  const dir = t.testdir();
  const a = await openSqliteStore(`sqlite:${join(dir, 'a.sqlite')}`, '');
  const b = await openSqliteStore(`sqlite:${join(dir, 'b.sqlite')}`, '');
  const reader = await openSqliteStore(`sqlite:${join(dir, 'r.sqlite')}`, '');
  await a.insert(model, { n: 1 }, stamp(1));
  await b.insert(model, { n: 2 }, stamp(2));
  const first = writerThread();
  t.ok(first !== undefined, 'writes started a thread');
  await a.close();
  await reader.close(); // a store that never wrote does not count
  t.equal((await b.insert(model, { n: 3 }, stamp(3))).id, 2, 'one store closed: the thread goes on');
  t.equal(writerThread(), first);
  await b.close();
  t.equal(writerThread(), undefined, 'the last store closed: the thread ended');
  const again = await openSqliteStore(`sqlite:${join(dir, 'a.sqlite')}`, '');
  t.teardown(() => again.close());
  t.equal((await again.insert(model, { n: 4 }, stamp(4))).id, 2, 'a new thread writes');
  t.ok(writerThread()! > first!, 'another thread');
  t.equal(await again.count(model, []), 2);
});
