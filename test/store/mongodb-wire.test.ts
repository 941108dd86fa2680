// The MongoDB store end to end with the real driver, on the in-process wire test server (no mongod needed):
// the MongoDB suite, and a database that goes away and comes back while the store and a server use it.

import t from 'tap';
import { SvcError } from '../../src/errors.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';
import { appServer } from '../helpers/server.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';
import { collect, query } from './conformance.ts';
import { untilServed } from './wire-store.ts';
import { runMongoSuite } from './mongodb-suite.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

/** How long an operation may wait for a server here, ms (README "MongoDB": `serverSelectionTimeoutMS`). */
const BOUND_MS = 500;


t.test('the MongoDB suite on the wire test server', async (t) => {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  runMongoSuite(t, wire.uri, {
    knownGaps: {
      codePointOrder: 'the wire test server runs mingo, which orders strings by UTF-16 unit',
      bsonNumberTypes: "the wire test server runs mingo, whose $type 'long' and 'decimal' match JavaScript numbers, not BSON Long and Decimal128",
    },
  });
});

t.test('a database that goes away: 503 within the bound, then served again by itself', async (t) => {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  const store: Store = await openStore(`${wire.uri}?serverSelectionTimeoutMS=${BOUND_MS}`, 'outage');
  t.teardown(() => store.close());
  const model = makeModel('notes', { text: 'text' });
  await store.insert(model, { text: 'before' }, stamp(1));

  await wire.stop();
  for (const [name, op] of [
    ['get', () => store.get(model, 1)],
    ['list', () => collect(store.list(model, query()))],
    ['count', () => store.count(model, [])],
    ['insert', () => store.insert(model, { text: 'during' }, stamp(2))],
    ['replace', () => store.replace(model, 1, { text: 'during' }, stamp(2), stamp(1))],
    ['delete', () => store.delete(model, 1)],
    ['ping', () => store.ping()],
  ] as const) {
    const started = performance.now();
    const e = await (op as () => Promise<unknown>)().then(() => undefined, (e: unknown) => e);
    const took = performance.now() - started;
    t.ok(e instanceof SvcError && e.code === 'store-unavailable' && e.headers?.['retry-after'], `${name}: 503 store-unavailable with Retry-After (${String(e)})`);
    // The bound, with room for a busy machine; the driver's own default would be 30 s.
    t.ok(took < BOUND_MS + 5_000, `${name}: answered after ${took.toFixed(0)} ms`);
  }

  await wire.start();
  t.same(await untilServed(() => store.get(model, 1)), { id: 1, updated: stamp(1), text: 'before' }, 'served again, nothing lost');
  t.equal((await store.insert(model, { text: 'after' }, stamp(3))).id, 2, 'the failed insert took no id that is used');
});

t.test('over HTTP: 503 store-unavailable with Retry-After while the database is gone, and no host in it', async (t) => {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  const server = await appServer(
    t,
    { models: { notes: { fields: { text: { type: 'text' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } },
    { store: `${wire.uri}http?serverSelectionTimeoutMS=${BOUND_MS}` },
  );
  const url = server.at('/resources/notes');
  t.equal((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' })).status, 201);

  await wire.stop();
  for (const [method, path] of [['GET', ''], ['GET', '/1'], ['POST', ''], ['PUT', '/1'], ['DELETE', '/1']] as const) {
    const res = await fetch(url + path, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' || method === 'PUT' ? { body: '{"text":"y"}' } : {}) });
    const text = await res.text();
    t.equal(res.status, 503, `${method} ${path || '/'}: 503`);
    t.match(res.headers.get('retry-after'), /^\d+$/, `${method} ${path || '/'}: Retry-After`);
    t.match(JSON.parse(text), { code: 'store-unavailable' });
    for (const leak of ['127.0.0.1', `:${wire.port}`, 'mongodb', 'Mongo', '    at ']) t.notOk(text.includes(leak), `${method} ${path || '/'}: no ${JSON.stringify(leak)}`);
  }

  await wire.start();
  const again = await untilServed(async () => {
    const res = await fetch(url);
    if (res.status === 503) throw new SvcError('store-unavailable', 'still down');
    return res;
  });
  t.equal(again.status, 200);
  t.same(((await again.json()) as { text: string }[]).map((m) => m.text), ['x'], 'served again by itself');
});
