// The MongoDB store: URIs, options and failures (no server needed), then test/store/mongodb-suite.ts on
// SVC_TEST_MONGODB_URI or an in-memory mongod (else one visible skip line).

import { MongoClient, MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { createServer } from 'node:net';
import t from 'tap';
import { SvcError } from '../../src/errors.ts';
import { acquireClient, clientOptions, databaseName } from '../../src/store/mongodb/connection.ts';
import { redact } from '../../src/store/redact.ts';
import { fieldKey, replacement, toDocument, toMember } from '../../src/store/mongodb/documents.ts';
import { isUnavailable, storeError } from '../../src/store/mongodb/errors.ts';
import { openMongoStore } from '../../src/store/mongodb/mongodb-store.ts';
import { openStore } from '../../src/store/open.ts';
import { makeModel } from '../fixtures/models.ts';
import { onMongo } from '../helpers/mongodb.ts';
import { collect, query } from './conformance.ts';
import { runMongoSuite } from './mongodb-suite.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

/** A port on 127.0.0.1 where nothing listens (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

t.test('database per app: from the URI path, else svc; a tenant gets <db>_<tenant>', async (t) => {
  t.equal(databaseName('mongodb://h', ''), 'svc');
  t.equal(databaseName('mongodb://h/', ''), 'svc');
  t.equal(databaseName('mongodb://h:27017/?replicaSet=rs0', 'acme'), 'svc_acme');
  t.equal(databaseName('mongodb://u:p%2F@h1,h2/shop?authSource=admin', ''), 'shop');
  t.equal(databaseName('mongodb+srv://u:p@cluster.example.net/shop', 'acme-2'), 'shop_acme-2');
  t.equal(databaseName('mongodb://h?tls=true', 'x'), 'svc_x', 'options without a path');
  t.throws(() => databaseName('mongodb://h/a.b', ''), /cannot be a MongoDB database name/);
  t.throws(() => databaseName('mongodb://h/a$b', ''), /cannot be a MongoDB database name/);
  t.throws(() => databaseName('mongodb://h/shop', '../x'), /invalid app name/);
  t.throws(() => databaseName(`mongodb://h/${'d'.repeat(60)}`, 'tenant'), /under 64 bytes/);
  // A tenant's database: the fix may be its name; an app's is the URI's alone.
  t.throws(() => databaseName('mongodb://h/svc', 't'.repeat(60)), /under 64 bytes\): shorten the database in the store URI \(or the tenant's name\)$/);
  t.throws(() => databaseName(`mongodb://h/${'d'.repeat(64)}`, ''), /under 64 bytes\): change the database in the store URI$/);
});

t.test('client options: bounded waits and journaled writes, unless the URI says otherwise', async (t) => {
  const defaults = clientOptions('mongodb://h/', { durable: true });
  t.match(defaults, { serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000, socketTimeoutMS: 30000, writeConcern: { journal: true } });
  const given = clientOptions('mongodb://h/?serverSelectionTimeoutMS=200&w=1', { durable: true });
  t.equal(given.serverSelectionTimeoutMS, undefined, 'the URI option wins');
  t.equal(given.writeConcern, undefined, 'a write concern in the URI wins');
  t.equal(clientOptions('mongodb://h/?SERVERSELECTIONTIMEOUTMS=1', { durable: true }).serverSelectionTimeoutMS, undefined, 'option names are case-insensitive');
  t.equal(clientOptions('mongodb://h/', { durable: false }).writeConcern, undefined, 'mongodb-memory: no journal');
  t.equal(new MongoClient('mongodb://h/?serverSelectionTimeoutMS=200', given).options.serverSelectionTimeoutMS, 200);
});

t.test('URIs in messages have no password', async (t) => {
  t.equal(redact('mongodb://admin:s3cret@db.example.net:27017/shop'), 'mongodb://…@db.example.net:27017/shop');
  t.equal(redact('mongodb+srv://u:p@c.example.net/?x=1'), 'mongodb+srv://…@c.example.net/?x=1');
  t.equal(redact('mongodb://db/shop'), 'mongodb://db/shop');
  const err = await openStore('mongo://admin:s3cret@h/', '').catch((e: Error) => e);
  t.ok(err instanceof Error && !err.message.includes('s3cret'), `an unknown URI is named without its password: ${String(err)}`);
});

t.test('documents: _id is the id, declared fields under model keys, absent fields have no key', async (t) => {
  const model = makeModel('m', { name: 'string', _id: 'string', _x: 'integer', ok: 'boolean', when: 'date' });
  t.equal(fieldKey(model, 'id'), '_id');
  t.equal(fieldKey(model, '_id'), '__id', 'a declared _id cannot meet MongoDB\'s');
  t.equal(fieldKey(model, '_x'), '__x');
  t.throws(() => fieldKey(model, 'nope'), /has no field/);
  const doc = toDocument(model, 7, stamp(1), { name: 'a', _id: 'b', ok: false, when: null });
  t.strictSame(doc, { _id: 7, updated: stamp(1), name: 'a', __id: 'b', ok: false });
  t.strictSame(toMember(model, doc), { id: 7, updated: stamp(1), name: 'a', _id: 'b', ok: false });
  // The date parts no index names go too, from every text field (one that was a date may hold some).
  const parts = Object.fromEntries(['name', '__id', 'when'].flatMap((k) => [[`${k}__month`, ''], [`${k}__day`, '']]));
  t.strictSame(replacement(model, stamp(2), { name: 'c' }), { $set: { updated: stamp(2), name: 'c' }, $unset: { __id: '', __x: '', ok: '', when: '', ...parts } });
  t.strictSame(toMember(makeModel('m', { name: 'string', n: 'integer' }), { _id: 1, updated: stamp(1), name: 12, n: '3' }), { id: 1, updated: stamp(1), name: '12', n: 3 }, 'values of an earlier field type read in the new type');
});

t.test('driver errors: a database that cannot answer is 503 store-unavailable, naming no host', async (t) => {
  const network = new MongoNetworkError('connect ECONNREFUSED 10.1.2.3:27017');
  const selection = new MongoServerSelectionError('Server selection timed out after 5000 ms: db.internal:27017', { type: 'Unknown', servers: new Map(), stale: false, compatible: true, heartbeatFrequencyMS: 10000, localThresholdMS: 15, setName: null, maxElectionId: null, maxSetVersion: null, commonWireVersion: 0, logicalSessionTimeoutMinutes: null } as never);
  const primary = new MongoServerError({ code: 10107, errmsg: 'not primary' });
  const conflict = new MongoServerError({ code: 112, errmsg: 'WriteConflict' });
  // What the driver lets through when it writes to a connection the server has just closed.
  const ended = Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' });
  for (const [name, e] of [['network', network], ['server selection', selection], ['not primary', primary], ['write conflict', conflict], ['socket ended', ended]] as const) {
    t.ok(isUnavailable(e), name);
    const mapped = storeError(e);
    t.ok(mapped instanceof SvcError && mapped.code === 'store-unavailable' && mapped.status === 503, `${name}: 503`);
    t.notMatch(JSON.stringify((mapped as SvcError).toProblem()), /10\.1\.2\.3|db\.internal|27017/, `${name}: no host`);
    t.equal((mapped as SvcError).headers?.['retry-after'], '5');
  }
  const duplicate = new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key' });
  t.equal(storeError(duplicate), duplicate, 'a duplicate key stays an error of its own (500, as an unexpected SQLite constraint)');
  t.notOk(isUnavailable(new MongoServerError({ code: 2, errmsg: 'BadValue' })), 'a bad command is no outage');
  t.notOk(isUnavailable(new Error('x')));
  t.notOk(isUnavailable(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' })));
});

t.test('an unreachable database: a clear error at start, 503 within the bound while serving', async (t) => {
  const port = await closedPort();
  const uri = `mongodb://admin:s3cret@127.0.0.1:${port}/shop?serverSelectionTimeoutMS=300`;
  const started = performance.now();
  const err = await openStore(uri, '').catch((e: Error) => e);
  t.ok(err instanceof Error, 'opening fails');
  t.match((err as Error).message, /^store mongodb:\/\/…@127\.0\.0\.1:\d+\/shop\?serverSelectionTimeoutMS=300: cannot reach MongoDB/, 'one line naming the store');
  t.notMatch((err as Error).message, /s3cret|\n|    at /, 'no password, no stack');

  const store = await openMongoStore(uri, '', { lazy: true });
  t.teardown(() => store.close());
  const model = makeModel('notes', { text: 'text' });
  for (const [name, op] of [
    ['list', () => collect(store.list(model, query()))],
    ['count', () => store.count(model, [])],
    ['get', () => store.get(model, 1)],
    ['insert', () => store.insert(model, { text: 'x' }, stamp(1))],
    ['ping', () => store.ping()],
  ] as const) {
    const e = await (op as () => Promise<unknown>)().then(() => undefined, (e: unknown) => e);
    t.ok(e instanceof SvcError && e.code === 'store-unavailable', `${name}: store-unavailable (${String(e)})`);
    t.notMatch(JSON.stringify((e as SvcError).toProblem?.()), /s3cret|127\.0\.0\.1/, `${name}: no host in the problem`);
  }
  const elapsed = performance.now() - started;
  // Six waits of 300 ms each; a generous bound that still tells "bounded" from "hangs" (30 s driver default).
  t.ok(elapsed < 15_000, `answered within ${elapsed.toFixed(0)} ms`);
});

t.test('stores on one URI share one client (one pool for every tenant)', async (t) => {
  const port = await closedPort();
  const uri = `mongodb://127.0.0.1:${port}/?serverSelectionTimeoutMS=100`;
  const a = acquireClient(uri, {});
  const b = acquireClient(uri, {});
  t.equal(a.client, b.client);
  await a.release();
  await a.release();
  const c = acquireClient(uri, {});
  t.equal(c.client, b.client, 'still open while one holds it');
  await b.release();
  await c.release();
  const d = acquireClient(uri, {});
  t.not(d.client, b.client, 'a new client after the last release');
  await d.release();
});

t.test('on a MongoDB server', (t) => onMongo(t, (uri) => runMongoSuite(t, uri)));
