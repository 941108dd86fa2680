// sqlite::memory: a write to another collection issued in the same turn as a model change, after
// the change began (between its settle() and its schema transaction), opened the group commit's
// transaction on the one connection; the migration's BEGIN IMMEDIATE then threw "cannot start a
// transaction within a transaction" and the model change (the request that made it) failed. On a
// file the same sequence works: the main connection's BEGIN is busy and retried.
import { join } from 'node:path';
import t from 'tap';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../fixtures/models.ts';

for (const kind of ['file', 'memory'] as const) {
  t.test(`model change beside another collection's write (${kind})`, async (t) => {
    const store = await openSqliteStore(kind === 'memory' ? 'sqlite::memory:' : `sqlite:${join(t.testdir(), 'svc.sqlite')}`, '');
    t.teardown(() => store.close());
    const a = makeModel('a', { n: 'integer' });
    const b1 = makeModel('b', { n: 'integer' });
    await store.insert(a, { n: 1 }, new Date().toISOString());
    await store.insert(b1, { n: 1 }, new Date().toISOString());
    const b2 = makeModel('b', { n: 'integer', extra: 'string' });
    const change = store.ensure(b2);
    const write = store.insert(a, { n: 2 }, new Date().toISOString());
    const [c, w] = await Promise.allSettled([change, write]);
    t.equal(w.status, 'fulfilled', 'the write is stored');
    t.equal(c.status, 'fulfilled', `the model change succeeds${c.status === 'rejected' ? `: ${(c.reason as Error).message}` : ''}`);
  });
}
