// A write whose connection to MongoDB is lost after the command was sent (the server failed over
// or restarted, the network dropped the reply, socketTimeoutMS passed) may have been applied: the
// client cannot know. The store answered it 503 store-unavailable, "retry in 5 s", as for a
// database that could not be reached before anything was sent: a client that did as it said sent
// its create again and made the member twice (ids are never reused, so the two are not even
// alike). SQLite answers a write whose outcome it cannot know 500 internal-error, "may or may not
// have been stored: read before writing it again" (writer.ts `outcomeUnknown`); MongoDB now does the
// same, and keeps 503 for a write that was never sent (no server to send it to) and for a create
// cut before its write (its id taken: nothing of the member is stored).
//
// On the wire test server (test/mongo-wire/server.ts): a hold runs the command and keeps its
// reply, then the server stops, so the driver sees the connection closed after it sent the
// command. It presents itself as a standalone server, so the driver does not retry the write; on
// a replica set (retryWrites, the driver's default) the driver sends it again once on another
// connection, which the server recognises as the same write, and only a write that the retry
// cannot settle either is answered so. That retry is what the wire test server cannot show.

import t, { type Test } from 'tap';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';
import { startMongoWireServer, type MongoWireServer } from '../mongo-wire/server.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

/** How long an operation may wait for a server here, ms. */
const BOUND_MS = 500;

const notes = makeModel('notes', { text: 'text' });

async function setup(t: Test, name: string): Promise<{ wire: MongoWireServer; store: Store; docs: () => unknown[] }> {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  const store = await openStore(`${wire.uri}?serverSelectionTimeoutMS=${BOUND_MS}`, name);
  t.teardown(() => store.close());
  await store.insert(notes, { text: 'first' }, stamp(1));
  return { wire, store, docs: () => wire.documents(`svc_${name}`, 'notes').map((d) => d.text) };
}

/** Runs `write` with the reply of the first command `name` on notes lost: the command runs, then the server goes away. */
async function replyLost(wire: MongoWireServer, name: string, write: () => Promise<unknown>): Promise<unknown> {
  const held = wire.hold((c) => c.name === name && c.collection === 'notes', { reply: true });
  const writing = write().then(
    () => undefined,
    (e: unknown) => e,
  );
  await held.reached;
  await wire.stop();
  held.release();
  return writing;
}

const unknownOutcome = { code: 'internal-error', status: 500, message: /may or may not have been stored/ };

t.test('a create whose reply is lost: not a 503 that asks for it again', async (t) => {
  const { wire, docs, store } = await setup(t, 'create');
  const e = await replyLost(wire, 'insert', () => store.insert(notes, { text: 'second' }, stamp(2)));
  t.match(e, unknownOutcome, 'the outcome is unknown, and the answer says so');
  t.notOk((e as { headers?: Record<string, string> }).headers?.['retry-after'], 'no Retry-After');
  t.same(docs(), ['first', 'second'], 'and it was stored: sent again, it would be stored twice');
});

t.test('an update and a delete whose replies are lost', async (t) => {
  const { wire, docs, store } = await setup(t, 'update');
  t.match(await replyLost(wire, 'update', () => store.replace(notes, 1, { text: 'changed' }, stamp(2), stamp(1))), unknownOutcome, 'an update');
  t.same(docs(), ['changed']);
  await wire.start();
  t.match(await replyLost(wire, 'delete', () => store.delete(notes, 1)), unknownOutcome, 'a delete');
  t.same(docs(), []);
});

t.test('writes never sent, or a create cut before its write: 503, nothing stored', async (t) => {
  const { wire, docs, store } = await setup(t, 'unsent');
  // The create's id is taken, and the reply of that is lost: the member itself was never sent.
  const held = wire.hold((c) => c.name === 'findAndModify' && c.collection === 'svc.counters', { reply: true });
  const creating = store.insert(notes, { text: 'second' }, stamp(2)).then(
    () => undefined,
    (e: unknown) => e,
  );
  await held.reached;
  await wire.stop();
  held.release();
  t.match(await creating, { code: 'store-unavailable', status: 503 }, 'a create cut while taking its id');
  // The database gone before anything is sent: no server to send it to.
  for (const [name, write] of [
    ['create', () => store.insert(notes, { text: 'third' }, stamp(3))],
    ['update', () => store.replace(notes, 1, { text: 'changed' }, stamp(4), stamp(1))],
    ['delete', () => store.delete(notes, 1)],
  ] as const) {
    await t.rejects((write as () => Promise<unknown>)(), { code: 'store-unavailable', status: 503, headers: { 'retry-after': /^\d+$/ } }, `${name}: 503 with Retry-After`);
  }
  t.same(docs(), ['first'], 'nothing stored');
});
