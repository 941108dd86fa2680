// Attack on the SQLite type-change migration (src/store/sqlite/schema.ts, `migrate` and `convert`):
// a field whose type changes between numbers, text and booleans, and back, must read the same by
// id, in a list and through every filter and order, across reopens, a second store on the same
// file and a migration that fails half way; no stored value may be lost or made inconsistent.

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t, { type Test } from 'tap';
import type { Member, Model, Value } from '../../src/model/types.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { indexDef, makeModel } from '../fixtures/models.ts';
import { keepWriterThread } from '../helpers/writer-thread.ts';
import { collect, filter, ids, order, query } from './conformance.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

// The file stores of every subtest share one writer thread instead of starting one each (test/helpers/writer-thread.ts).
const writer = await keepWriterThread();
t.teardown(() => writer.close());

/**
 * Every member reads the same by id as in a list; for each value of `field`, an exact filter on
 * it finds exactly the members that read it, isnull agrees with absence, and the filtered totals
 * agree with the lists.
 */
async function agrees(t: Test, store: Store, model: Model, field: string, label: string): Promise<Member[]> {
  const listed = await collect(store.list(model, query({})));
  const byId = await Promise.all(listed.map((m) => store.get(model, m.id)));
  t.same(byId, listed, `${label}: by id as in a list`);
  const absent = listed.filter((m) => m[field] === undefined).map((m) => m.id);
  t.same(await ids(store, model, { filters: [filter(field, 'isnull', true)] }), absent, `${label}: isnull finds the absent ones`);
  t.equal(await store.count(model, [filter(field, 'isnull', true)]), absent.length, `${label}: isnull count`);
  const values = new Map<string, number[]>();
  for (const m of listed) {
    const v = m[field];
    if (v === undefined || v === null || (typeof v === 'number' && !Number.isFinite(v))) continue;
    const key = JSON.stringify(v);
    values.set(key, [...(values.get(key) ?? []), m.id]);
  }
  for (const [key, expected] of values) {
    const v = JSON.parse(key) as Value;
    t.same(await ids(store, model, { filters: [filter(field, 'exact', v)] }), expected, `${label}: ${field}=${key} finds the members that read it`);
    t.equal(await store.count(model, [filter(field, 'exact', v)]), expected.length, `${label}: ${field}=${key} count`);
  }
  // An order by the field is the order of what the members read (absent first, ties by id).
  const ordered = await collect(store.list(model, query({ order: order(field) })));
  const expected = [...listed].sort((x, y) => compareValues(x[field], y[field]) || x.id - y.id);
  t.same(ordered.map((m) => m.id), expected.map((m) => m.id), `${label}: ordered as the members read`);
  return listed;
}

/** Values as the stores order them: absent first, text by code point, numbers and booleans by value. */
function compareValues(a: Value | undefined, b: Value | undefined): number {
  if (a === undefined || a === null) return b === undefined || b === null ? 0 : -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === 'string' && typeof b === 'string') {
    const [x, y] = [[...a].map((c) => c.codePointAt(0)!), [...b].map((c) => c.codePointAt(0)!)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  }
  return Number(a) - Number(b);
}

async function fileStore(t: Test, name = 'x.sqlite'): Promise<{ store: Store; path: string }> {
  const path = join(t.testdir(), name);
  const store = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => store.close());
  return { store, path };
}

t.test('string → integer → string: text that is no integer (absent as an integer) reads and filters alike', async (t) => {
  const { store } = await fileStore(t);
  const s = (): Model => makeModel('m', { v: 'string' });
  for (const v of ['abc', '0123', ' 12', '1e5', '-0', '9007199254740993', '1e18', '', 'NaN', 'é\u{1F600}']) await store.insert(s(), { v }, stamp(1));
  await store.insert(s(), {}, stamp(2));
  const i = (): Model => makeModel('m', { v: 'integer' });
  // Past 2^53 (2^53 + 1 read as a number, 1e18) is no integer a write accepts, and an INTEGER past
  // it cannot be read by node:sqlite: absent, not a collection that every list fails on.
  const asIntegers = await agrees(t, store, i(), 'v', 'as integers');
  // Empty text is no number either (it read as 0 before).
  t.same(asIntegers.map((m) => m.v ?? null), [null, 123, 12, 100000, 0, null, null, null, null, null, null]);
  const back = await agrees(t, store, s(), 'v', 'as strings again');
  // What they read is the integer era's: the text of the first era is not half back.
  t.same(back.map((m) => m.v ?? null), [null, '123', '12', '100000', '0', null, null, null, null, null, null]);
});

t.test('integer → boolean → integer: a number made a boolean reads and filters alike', async (t) => {
  const { store } = await fileStore(t);
  const i = (): Model => makeModel('m', { v: 'integer' });
  for (const v of [5, 0, 1, -3]) await store.insert(i(), { v }, stamp(1));
  const b = (): Model => makeModel('m', { v: 'boolean' });
  await agrees(t, store, b(), 'v', 'as booleans');
  const back = await agrees(t, store, i(), 'v', 'as integers again');
  t.same(back.map((m) => m.v), [1, 0, 1, 1], 'the boolean era\'s truth values');
});

t.test('float → boolean keeps its column and rewrites only the values other than 0 and 1 (README)', async (t) => {
  const { store, path } = await fileStore(t);
  for (const v of [0, 1, 2, 0.5]) await store.insert(makeModel('fl', { v: 'float' }), { v }, stamp(1));
  const flags = makeModel('fl', { v: 'boolean' });
  t.same((await agrees(t, store, flags, 'v', 'as booleans')).map((m) => m.v), [false, true, true, true]);
  const db = new DatabaseSync(path, { readOnly: true });
  t.teardown(() => db.close());
  t.equal(db.prepare('SELECT col FROM svc_fields').get()!.col, 'v', 'the field stays in its column');
  t.same(db.prepare('SELECT "~shape" AS s FROM fl ORDER BY id').all().map((r) => r.s !== null), [true, true, false, false], 'only 2 and 0.5 rewritten');
});

t.test('float → boolean → float and integer → string → boolean → integer', async (t) => {
  const { store } = await fileStore(t);
  const f = (): Model => makeModel('m', { v: 'float' });
  for (const v of [0.5, 2.25, 0]) await store.insert(f(), { v }, stamp(1));
  await agrees(t, store, makeModel('m', { v: 'boolean' }), 'v', 'float as booleans');
  await agrees(t, store, f(), 'v', 'floats again');

  const { store: other } = await fileStore(t, 'y.sqlite');
  const i = (): Model => makeModel('n', { v: 'integer' });
  for (const v of [5, 0, 7]) await other.insert(i(), { v }, stamp(1));
  await agrees(t, other, makeModel('n', { v: 'string' }), 'v', 'as strings');
  await agrees(t, other, makeModel('n', { v: 'boolean' }), 'v', 'as booleans');
  await agrees(t, other, i(), 'v', 'as integers again');
});

t.test('a type change of one field leaves the others of the same members alone (older shapes, two earlier shapes)', async (t) => {
  const { store } = await fileStore(t);
  const one = (): Model => makeModel('m', { a: 'string' });
  await store.insert(one(), { a: 'first' }, stamp(1));
  const two = (): Model => makeModel('m', { a: 'string', v: 'integer' });
  await store.insert(two(), { a: 'second', v: 12 }, stamp(2));
  const three = (): Model => makeModel('m', { a: 'string', v: 'integer', w: 'boolean' });
  await store.insert(three(), { a: 'third', v: 7, w: true }, stamp(3));
  const changed = (): Model => makeModel('m', { a: 'string', v: 'string', w: 'integer' });
  const listed = await agrees(t, store, changed(), 'v', 'v as text');
  await agrees(t, store, changed(), 'w', 'w as integer');
  t.same(listed.map((m) => [m.a, m.v ?? null, m.w ?? null]), [['first', null, null], ['second', '12', null], ['third', '7', 1]]);
  t.same(await ids(store, changed(), { filters: [filter('v', 'startswith', '1')] }), [2]);
  t.same(await ids(store, changed(), { filters: [filter('v', 'in', ['7', '12'])] }), [2, 3]);
  t.same(await ids(store, changed(), { filters: [filter('v', 'gt', '5')] }), [3], 'compared as text: "12" < "5"');
  t.same(await ids(store, changed(), { order: order('-v') }), [3, 2, 1]);
});

t.test('a date in a compound index with its day: to integer and back', async (t) => {
  const { store, path } = await fileStore(t);
  const date = (): Model => makeModel('p', { born: 'date', name: 'string' }, { indexes: [indexDef('born__day', 'name')] });
  await store.insert(date(), { born: '2020-01-05', name: 'a' }, stamp(1));
  await store.insert(date(), { born: '1999-12-05', name: 'b' }, stamp(2));
  await store.insert(date(), { name: 'c' }, stamp(3));
  const asInt = (): Model => makeModel('p', { born: 'integer', name: 'string' });
  await agrees(t, store, asInt(), 'born', 'as integers');
  await store.insert(asInt(), { born: 20200105, name: 'd' }, stamp(4));
  const back = await agrees(t, store, date(), 'born', 'as dates again');
  // A date is no number (absent as an integer) and stays absent; a number is no date (absent too).
  t.same(back.map((m) => m.born ?? null), [null, null, null, null]);
  t.same(await ids(store, date(), { filters: [filter('born', 'day', 5)] }), back.filter((m) => typeof m.born === 'string' && m.born.endsWith('-05')).map((m) => m.id), 'day agrees with the reads');
  const db = new DatabaseSync(path, { readOnly: true });
  t.teardown(() => db.close());
  t.same(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'p/+%'").all().map((r) => r.name), ['p/+born__day,name'], 'one compound index, on the current column (its name free again)');
});

t.test('reopening after a change converts nothing again and loses nothing', async (t) => {
  const { store, path } = await fileStore(t);
  const i = (): Model => makeModel('m', { v: 'integer' });
  for (const v of [1, 22, 333]) await store.insert(i(), { v }, stamp(v));
  const s = (): Model => makeModel('m', { v: 'string' });
  await store.insert(s(), { v: '0123' }, stamp(4));
  const before = await agrees(t, store, s(), 'v', 'before reopening');
  await store.close();
  for (let n = 0; n < 2; n++) {
    const again = await openSqliteStore(`sqlite:${path}`, '');
    t.same(await agrees(t, again, s(), 'v', `reopened ${n}`), before);
    await again.close();
  }
});

t.test('two stores on one file: one changes the type, the other still writes under the old model', async (t) => {
  const { store: a, path } = await fileStore(t);
  const b = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => b.close());
  const i = (): Model => makeModel('m', { v: 'integer' });
  await a.insert(i(), { v: 1 }, stamp(1));
  await b.insert(i(), { v: 2 }, stamp(2));
  const s = (): Model => makeModel('m', { v: 'string' });
  await a.insert(s(), { v: 'x' }, stamp(3));
  // b's old model names a column that is gone: its write fails rather than landing nowhere.
  await t.rejects(b.insert(i(), { v: 3 }, stamp(4)), 'a write under the old model fails');
  await b.insert(s(), { v: '03' }, stamp(5));
  t.same(await agrees(t, a, s(), 'v', 'first store'), await agrees(t, b, s(), 'v', 'second store'));
  t.same((await collect(a.list(s(), query({})))).map((m) => m.v), ['1', '2', 'x', '03']);
});

t.test('a migration that fails half way leaves the old column, its data and the store usable', async (t) => {
  const { store, path } = await fileStore(t);
  const i = (): Model => makeModel('m', { v: 'integer' });
  // Issued at once: they share commits, and take their ids in the order issued (id n + 1 holds n).
  await Promise.all(Array.from({ length: 2500 }, (_, n) => store.insert(i(), { v: n }, stamp(n))));
  await store.close();
  // The conversion's UPDATE of a row past the first batch fails.
  const db = new DatabaseSync(path);
  db.exec(`CREATE TRIGGER "boom" BEFORE UPDATE ON "m" WHEN NEW."id" = 2222 BEGIN SELECT RAISE(ABORT, 'boom'); END`);
  const schema = () => db.prepare("SELECT name, type FROM pragma_table_info('m')").all().map((r) => `${r.name} ${r.type}`);
  const fields = () => db.prepare('SELECT field, col FROM svc_fields').all();
  const columnsBefore = schema();
  const fieldsBefore = fields();
  const reopened = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => reopened.close());
  const s = (): Model => makeModel('m', { v: 'string' });
  await t.rejects(reopened.ensure(s()), /boom/, 'the migration fails');
  t.same(schema(), columnsBefore, 'the columns as they were');
  t.same(fields(), fieldsBefore, 'the fields map as it was');
  t.same(db.prepare('SELECT count(*) AS n, sum(v) AS s FROM m').get(), { n: 2500, s: (2499 * 2500) / 2 }, 'every value kept');
  t.equal(await reopened.count(i(), [filter('v', 'gte', 2400)]), 100, 'the old model still reads');
  db.exec('DROP TRIGGER "boom"');
  db.close();
  await agrees(t, reopened, s(), 'v', 'and the change succeeds once it can');
  t.equal(await reopened.count(s(), []), 2500);
});

t.test('writes under the old model still in flight when the type changes: each acknowledged one reads and filters alike', async (t) => {
  for (const [to, field] of [['string', 'as text'], ['boolean', 'as booleans']] as const) {
    const { store } = await fileStore(t, `${to}.sqlite`);
    // The requests' model, known to the store (as a model file's is until the file changes).
    const old = makeModel('m', { v: 'integer' });
    await store.insert(old, { v: 1 }, stamp(0));
    // Issued, not awaited: queued for the writer thread when the change comes.
    const writes = Array.from({ length: 40 }, (_, n) => store.insert(old, { v: n + 5 }, stamp(n + 1)));
    const changed = (): Model => makeModel('m', { v: to });
    await store.ensure(changed());
    const outcomes = await Promise.allSettled(writes);
    const acked = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.id] : []));
    // They were issued before the change: they land before it and are converted with the rest.
    t.equal(acked.length, 40, `${to}: every write issued before the change acknowledged`);
    const listed = await agrees(t, store, changed(), 'v', `${field}, writes in flight`);
    t.same(acked.filter((id) => !listed.some((m) => m.id === id)), [], `${to}: no acknowledged write lost`);
  }
});

t.test('integer → float: a whole float past 2^53 stays readable, after the fields change again and in a store that already held one', async (t) => {
  const { store, path } = await fileStore(t);
  await store.insert(makeModel('m', { v: 'integer' }), { v: 1 }, stamp(1));
  const f = (): Model => makeModel('m', { v: 'float' });
  for (const v of [1e18, 2.5, -(2 ** 60), 2 ** 53]) await store.insert(f(), { v }, stamp(2));
  t.same((await agrees(t, store, f(), 'v', 'as floats')).map((m) => m.v), [1, 1e18, 2.5, -(2 ** 60), 2 ** 53]);
  // Members of an older shape are read from their columns.
  const more = (): Model => makeModel('m', { v: 'float', w: 'string' });
  t.same((await agrees(t, store, more(), 'v', 'with a field more')).map((m) => m.v), [1, 1e18, 2.5, -(2 ** 60), 2 ** 53]);
  t.same(await ids(store, more(), { filters: [filter('v', 'gt', 2 ** 53)], order: order('v') }), [2]);
  await store.close();

  // As a store left it before floats moved out of integer columns: 1e18 an INTEGER, in a member of an older shape.
  const db = new DatabaseSync(path);
  db.exec(`UPDATE "m" SET "~shape" = NULL`);
  db.exec(`ALTER TABLE "m" ADD COLUMN "old" INTEGER`);
  db.exec(`UPDATE svc_fields SET col = 'old' WHERE field = 'v'`);
  db.exec(`UPDATE "m" SET "old" = 1000000000000000000 WHERE "id" = 2`);
  db.close();
  const reopened = await openSqliteStore(`sqlite:${path}`, '');
  t.teardown(() => reopened.close());
  t.same((await agrees(t, reopened, more(), 'v', 'a store that held one')).map((m) => m.v ?? null), [null, 1e18, null, null, null]);
});

t.test(
  'a second store still on the old model writes a number after the field was made boolean',
  { todo: 'not fixed: the migration rewrites the numbers once; a writer on the old fields (another process, a request begun before the change) adds one after it, which reads true and is missed by v=true until the next migration' },
  async (t) => {
    const { store: a, path } = await fileStore(t);
    const b = await openSqliteStore(`sqlite:${path}`, '');
    t.teardown(() => b.close());
    const old = makeModel('m', { v: 'integer' });
    await b.insert(old, { v: 1 }, stamp(1));
    await a.ensure(makeModel('m', { v: 'boolean' }));
    await b.insert(old, { v: 5 }, stamp(2));
    await agrees(t, a, makeModel('m', { v: 'boolean' }), 'v', 'as booleans');
  },
);

t.test(
  'a list streaming when the type changes reads its members to the end',
  async (t) => {
    const { store } = await fileStore(t);
    const one = makeModel('m', { v: 'integer' });
    await Promise.all(Array.from({ length: 100 }, (_, n) => store.insert(one, { v: n }, stamp(n))));
    // Members of an older shape, read from their columns.
    const two = makeModel('m', { v: 'integer', w: 'string' });
    const it = store.list(two, query({}))[Symbol.asyncIterator]();
    t.equal((await it.next()).value?.v, 0);
    const three = makeModel('m', { v: 'string', w: 'string' });
    await store.ensure(three);
    let n = 1;
    let last: unknown;
    for (let r = await it.next(); !r.done; r = await it.next()) {
      n++;
      last = r.value;
    }
    t.equal(n, 100, 'every member');
    // Read after the change: as the member is now, the value in its new type.
    t.same(last, await store.get(three, 100));
    t.same((last as { v: unknown }).v, '99');
  },
);

t.test('in memory: the round trips read and filter alike', async (t) => {
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  for (const v of [5, 0, -3]) await store.insert(makeModel('m', { v: 'integer' }), { v }, stamp(1));
  for (const v of ['abc', '0123', '12']) await store.insert(makeModel('m', { v: 'string' }), { v }, stamp(2));
  for (const type of ['integer', 'boolean', 'string', 'float', 'integer', 'string'] as const) {
    await agrees(t, store, makeModel('m', { v: type }), 'v', `as ${type}`);
  }
});
