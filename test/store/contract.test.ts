// The query contract of src/store/store.ts, and how each store reports a database it cannot use in time.

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import { SvcError } from '../../src/errors.ts';
import { absentMatches, orderTerms, pageOf, storeUnavailable } from '../../src/store/store.ts';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { GroupCommit, transaction } from '../../src/store/sqlite/group-commit.ts';
import { Statements } from '../../src/store/sqlite/statements.ts';
import { filter, order } from './conformance.ts';

t.test('what an absent value matches', async (t) => {
  const cases: [Parameters<typeof filter>, boolean][] = [
    [['x', 'isnull', true], true],
    [['x', 'isnull', false], false],
    [['x', 'exact', null], true],
    [['x', 'exact', 'a'], false],
    [['x', 'ne', 'a'], true],
    [['x', 'ne', null], false],
    [['x', 'in', ['a', null]], true],
    [['x', 'in', ['a']], false],
    [['x', 'in', []], false],
    [['x', 'gt', 'a'], false],
    [['x', 'lte', 3], false],
    [['x', 'range', [1, 2]], false],
    [['x', 'contains', ''], false],
    [['x', 'iexact', ''], false],
    [['x', 'year', 2024], false],
  ];
  for (const [args, expected] of cases) t.equal(absentMatches(filter(...args)), expected, `${args[1]} ${JSON.stringify(args[2])}`);
});

t.test('order terms: up to the first id, then id ascending', async (t) => {
  t.same(orderTerms([]), order('id'));
  t.same(orderTerms(order('-a')), order('-a', 'id'));
  t.same(orderTerms(order('a', '-b')), order('a', '-b', 'id'));
  t.same(orderTerms(order('-id', 'a')), order('-id'), 'nothing after id');
  t.same(orderTerms(order('a', 'id', 'b')), order('a', 'id'));
});

t.test('pages', async (t) => {
  t.same(pageOf({ start: 0 }), { skip: 0, limit: undefined, none: false });
  t.same(pageOf({ start: 5, count: 5 }), { skip: 5, limit: 5, none: false });
  t.same(pageOf({ start: 3, count: 0 }), { skip: 3, limit: 0, none: true }, 'count 0 is an empty page');
});

t.test('store-unavailable names no host and asks the client to retry', async (t) => {
  const cause = new Error('connect ECONNREFUSED db.internal:27017 mongodb://admin:secret@db.internal');
  const err = storeUnavailable(cause);
  t.equal(err.status, 503);
  t.equal(err.code, 'store-unavailable');
  t.match(err.headers, { 'retry-after': /^\d+$/ });
  const problem = JSON.stringify(err.toProblem());
  t.notMatch(problem, /db\.internal|secret|ECONNREFUSED/);
  t.equal(err.cause, cause, 'the cause is kept for the log');
  t.notOk(Object.keys(err).includes('cause'), 'but is not enumerable');
});

t.test('SQLite: a database locked beyond the busy timeout is store-unavailable', async (t) => {
  const path = join(t.testdir(), 'busy.sqlite');
  openDatabase(path).close();
  const holder = new DatabaseSync(path);
  t.teardown(() => holder.close());
  holder.exec('BEGIN IMMEDIATE');
  const db = new DatabaseSync(path, { timeout: 0 });
  t.teardown(() => db.close());
  const writes = new GroupCommit(db, new Statements(db));
  const err = await writes.write(() => 1).catch((e: unknown) => e);
  t.ok(err instanceof SvcError && err.code === 'store-unavailable', `a locked write is 503 (${String(err)})`);
  t.throws(() => transaction(db, () => 1), { code: 'store-unavailable' }, 'and so is a schema change');
  holder.exec('COMMIT');
  t.equal(await writes.write(() => 2), 2, 'the lock gone, writes go through');
  t.throws(() => transaction(db, () => { throw new Error('boom'); }), /boom/, 'other errors stay as they are');
});
