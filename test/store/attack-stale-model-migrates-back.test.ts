// A request holds the model it read when it started (server.ts reads it before the body; a handler
// may await a `fetch` before it delegates). When the model file changes meanwhile and another
// request migrates the table to the new model, the first request's model is an old one the store
// had not seen: the store migrated the table back to it (undoing the change: a date-time written
// under the new model lost its time), and then held the new model's description of the table,
// which that migration had made wrong: every later create and filtered list of the new model (the
// model file as it is) failed, 500 "no column named", until the file changed again or the process
// restarted. Several processes on one file (--workers) do this with the model one of them read
// first. A store migrates a table only to a model that is its file as it is now.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import t from 'tap';
import { ModelRegistry } from '../../src/model/registry.ts';
import type { Model } from '../../src/model/types.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { keepWriterThread } from '../helpers/writer-thread.ts';
import { collect, filter, query } from './conformance.ts';

// The file stores of every subtest share one writer thread instead of starting one each (test/helpers/writer-thread.ts).
const writer = await keepWriterThread();
t.teardown(() => writer.close());

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

/** An app's models directory holding `x.json`, and its registry: `model()` is `x` as the file is now (read in a later turn, as a request is). */
function app(dir: string): { write(fields: Record<string, string>): void; model(): Promise<Model> } {
  const models = join(dir, 'app', 'models');
  mkdirSync(models, { recursive: true });
  const registry = new ModelRegistry(models, () => {});
  return {
    write: (fields) => writeFileSync(join(models, 'x.json'), JSON.stringify({ fields: Object.fromEntries(Object.entries(fields).map(([k, type]) => [k, { type }])) })),
    model: async () => {
      await nextTurn();
      return registry.get('x')!;
    },
  };
}

t.test('a model read before a change, used after the change migrated the table, migrates nothing back', async (t) => {
  const dir = t.testdir();
  const files = app(dir);
  const store = await openSqliteStore(`sqlite:${join(dir, 'x.sqlite')}`, '');
  t.teardown(() => store.close());
  files.write({ at: 'date' });
  const first = await files.model();
  await store.insert(first, { at: '2025-01-01' }, stamp(1));

  // A request reads the model (the file's next version), and is slow to reach the store.
  files.write({ at: 'date', note: 'string' });
  const stale = await files.model();
  // Meanwhile the file changes again, and another request's write migrates the table.
  files.write({ at: 'date-time', note: 'string' });
  const current = await files.model();
  const written = await store.insert(current, { at: '2025-02-03T04:05:06.789Z' }, stamp(2));

  await t.rejects(store.insert(stale, { at: '2025-03-01', note: 'late' }, stamp(3)), { code: 'model-changed', status: 503 }, 'the late request is told the model changed');

  const now = await files.model();
  t.equal(now, current, 'the file is unchanged: the same model');
  t.same((await store.get(now, written.id))?.at, '2025-02-03T04:05:06.789Z', 'the date-time written under the model as it is keeps its time');
  t.equal((await store.insert(now, { at: '2025-04-01T00:00:00.000Z', note: 'next' }, stamp(4))).note, 'next', 'a create under the model as it is');
  const listed = await collect(store.list(now, query({ filters: [filter('at', 'gte', '2025-02-01T00:00:00.000Z')] })));
  t.same(listed.map((m) => m.at), ['2025-02-03T04:05:06.789Z', '2025-04-01T00:00:00.000Z'], 'a filtered list under the model as it is');
});

t.test('two stores on one file (two processes): the one that read the model first does not undo the other’s migration', async (t) => {
  const dir = t.testdir();
  const files = app(dir);
  const path = `sqlite:${join(dir, 'x.sqlite')}`;
  const a = await openSqliteStore(path, '');
  t.teardown(() => a.close());
  const b = await openSqliteStore(path, '');
  t.teardown(() => b.close());
  files.write({ n: 'string' });
  const first = await files.model();
  await a.insert(first, { n: '1.5' }, stamp(1));
  await b.insert(first, { n: '2' }, stamp(2));

  // Process b's request reads the next version; the file changes again and process a migrates to it.
  files.write({ n: 'string', extra: 'boolean' });
  const stale = await files.model();
  files.write({ n: 'float' });
  const current = await files.model();
  await a.insert(current, { n: 3.25 }, stamp(3));

  await t.rejects(b.insert(stale, { n: 'x', extra: true }, stamp(4)), { code: 'model-changed' }, 'b is told the model changed');
  t.same((await collect(a.list(current, query({ filters: [filter('n', 'gt', 1)] })))).map((m) => m.n), [1.5, 2, 3.25], 'a: the table is still the float one');
  t.equal((await a.insert(current, { n: 4.5 }, stamp(5))).n, 4.5, 'a: a create under the model as it is');
  t.equal((await b.insert(await files.model(), { n: 5.5 }, stamp(6))).n, 5.5, 'b: a create under the model as it is');
});
