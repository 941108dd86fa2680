// A preparation of a MongoDB collection rewrites the values a field's type change leaves
// (#retype), then records the fields' types in svc.counters; a later preparation reads what the
// values may be from those records, and looks for text that is no canonical date, or numbers no
// integer holds, only where the recorded type is another. A preparation cut between its rewrite
// and its record (the connection to MongoDB dropped, the process stopped; or its model file
// changed again, which stops it there: attack-mongo-stale-model-prepares-back) left values of the
// new type under the old type's record. A date-time field made date, then made date-time again
// before a preparation recorded `date`: the next preparation believed the values date-times and
// left the dates as they were, so `2025-01-01` read as `2025-01-01T00:00:00.000Z` but compared as
// its text: not found by `at=2025-01-01T00:00:00.000Z`, found by `at<2025-01-01T00:00:00.000Z`.
// A field's record is removed before its values are rewritten, so that a cut leaves it unknown,
// and the next preparation looks at every value.
//
// On the wire test server (test/mongo-wire/server.ts): a hold lets the rewrite run and keeps its
// reply, then the file changes or the server stops. A real server may also lose the connection
// inside the bulk write itself (some of its updates applied): each is conditional on the value it
// replaces, and the removed record covers those the same way.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { ModelRegistry } from '../../src/model/registry.ts';
import type { Model } from '../../src/model/types.ts';
import { openStore } from '../../src/store/open.ts';
import { startMongoWireServer, type MongoWireServer } from '../mongo-wire/server.ts';
import { collect, filter, ids, query } from './conformance.ts';
import { untilServed } from './wire-store.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

/** How long an operation may wait for a server here, ms. */
const BOUND_MS = 500;

function app(dir: string): { write(type: string): void; model(): Promise<Model> } {
  const models = join(dir, 'app', 'models');
  mkdirSync(models, { recursive: true });
  const registry = new ModelRegistry(models, () => {});
  return {
    write: (type) => writeFileSync(join(models, 'x.json'), JSON.stringify({ fields: { at: { type } } })),
    model: async () => {
      await nextTurn();
      return registry.get('x')!;
    },
  };
}


async function scenario(t: Test, name: string, cut: (wire: MongoWireServer, files: ReturnType<typeof app>) => Promise<void>, expected: string): Promise<void> {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  const store = await openStore(`${wire.uri}?serverSelectionTimeoutMS=${BOUND_MS}`, name);
  t.teardown(() => store.close());
  const files = app(t.testdir());
  files.write('date-time');
  await store.insert(await files.model(), { at: '2025-01-01T10:00:00.000Z' }, stamp(1));

  files.write('date');
  const rewritten = wire.hold((c) => c.name === 'update' && c.collection === 'x', { reply: true });
  const preparing = store.ensure(await files.model());
  await rewritten.reached;
  t.same(wire.documents(`svc_${name}`, 'x').map((d) => d.at), ['2025-01-01'], 'the preparation rewrote the value as a date');
  await cut(wire, files);
  rewritten.release();
  await t.rejects(preparing, { code: expected }, `and was cut before it recorded the types (${expected})`);

  files.write('date-time');
  const now = await files.model();
  const listed = await untilServed(() => collect(store.list(now, query({}))));
  t.same(listed.map((m) => m.at), ['2025-01-01T00:00:00.000Z'], 'the date reads as its midnight');
  t.same(wire.documents(`svc_${name}`, 'x').map((d) => d.at), ['2025-01-01T00:00:00.000Z'], 'and is stored so, rewritten by the next preparation');
  t.same(await ids(store, now, { filters: [filter('at', 'exact', '2025-01-01T00:00:00.000Z')] }), [1], 'found by its value');
  t.same(await ids(store, now, { filters: [filter('at', 'lt', '2025-01-01T00:00:00.000Z')] }), [], 'not found before it');
}

t.test('the model file changed back while the preparation rewrote', (t) =>
  scenario(t, 'changed', async (_wire, files) => files.write('date-time'), 'model-changed'));

t.test('the connection to MongoDB dropped while the preparation rewrote', (t) =>
  scenario(
    t,
    'dropped',
    async (wire) => {
      await wire.stop();
      await wire.start();
    },
    'store-unavailable',
  ));
