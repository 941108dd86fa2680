// Conditional writes racing on MongoDB, from two processes (two stores on one database, each a
// client of its own), through the member operations the default handler and the model API share
// (handler/members.ts): an update reads the member, then writes on the condition that its
// `updated` is still what it read; a conditional delete the same. These held: the attacks are kept
// so that they keep holding.
//
// - Of ten updates carrying the same If-Match, exactly one is stored; the others are 412.
// - An update whose write lands after another process deleted the member is 404, and the
//   member stays deleted (the write is a filtered update, never an upsert).
// - A delete with If-Match whose write lands after another process's update is 412, and the
//   update is kept.
// - Each write's `updated` is later than the one it replaced (nextUpdated), even when the other
//   process's clock runs ahead and two updates race on one version: the loser reads again and
//   stamps after the winner, so no entity tag ever names two states of a member.
//
// On the wire test server (test/mongo-wire/server.ts), which runs one command at a time; holds
// put the other process's write between a read and the conditional write. What it cannot show is
// a real server running two conditional updates of one document at the same moment: MongoDB
// applies each single-document update atomically, re-evaluating its filter after a write conflict
// (https://www.mongodb.com/docs/manual/core/write-operations-atomicity/), which is what the
// single filtered write relies on.

import t, { type Test } from 'tap';
import { deleteMember, updateMember } from '../../src/handler/members.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';
import { startMongoWireServer, type MongoWireServer } from '../mongo-wire/server.ts';

const notes = makeModel('notes', { text: 'text' });

async function setup(t: Test, name: string): Promise<{ wire: MongoWireServer; a: Store; b: Store }> {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  const a = await openStore(wire.uri, name);
  t.teardown(() => a.close());
  const b = await openStore(`${wire.uri}?appName=b`, name);
  t.teardown(() => b.close());
  await a.insert(notes, { text: 'first' }, new Date().toISOString());
  await b.ensure(notes);
  return { wire, a, b };
}

/** Holds the next conditional write of member 1 (an update or a delete on `{_id, updated}`) before it runs. */
const holdWrite = (wire: MongoWireServer, name: 'update' | 'delete') =>
  wire.hold((c) => c.name === name && c.collection === 'notes' && JSON.stringify(c.command[name === 'update' ? 'updates' : 'deletes']).includes('"updated"'));

t.test('ten updates with the same If-Match from two processes: exactly one is stored', async (t) => {
  const { a, b } = await setup(t, 'ifmatch');
  const before = (await a.get(notes, 1))!;
  const results = await Promise.allSettled(
    Array.from({ length: 10 }, (_, i) => updateMember(i % 2 ? b : a, notes, 1, { text: `update ${i}` }, { ifMatch: [before.updated] })),
  );
  const stored = results.filter((r) => r.status === 'fulfilled');
  t.equal(stored.length, 1, 'one stored');
  t.ok(
    results.every((r) => r.status === 'fulfilled' || (r.reason as { code?: string }).code === 'precondition-failed'),
    'the others 412 precondition-failed',
  );
  const now = (await b.get(notes, 1))!;
  t.same(now, (stored[0] as PromiseFulfilledResult<unknown>).value, 'the member is the stored update');
  t.ok(now.updated > before.updated, 'stamped after the version it replaced');
});

t.test('an update whose write lands after the other process deleted the member: 404, and it stays deleted', async (t) => {
  const { wire, a, b } = await setup(t, 'deleted');
  const held = holdWrite(wire, 'update');
  const updating = updateMember(a, notes, 1, { text: 'late' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  await held.reached;
  t.ok(await deleteMember(b, notes, 1), 'b deletes it');
  held.release();
  t.match(await updating, { code: 'member-not-found', status: 404 });
  t.same(wire.documents('svc_deleted', 'notes'), [], 'not brought back');
});

t.test('a delete with If-Match whose write lands after the other process’s update: 412, the update kept', async (t) => {
  const { wire, a, b } = await setup(t, 'updated');
  const before = (await a.get(notes, 1))!;
  const held = holdWrite(wire, 'delete');
  const deleting = deleteMember(a, notes, 1, { ifMatch: [before.updated] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  await held.reached;
  const updated = await updateMember(b, notes, 1, { text: 'b' });
  held.release();
  t.match(await deleting, { code: 'precondition-failed', status: 412 });
  t.same(await a.get(notes, 1), updated, 'the update is kept');
});

t.test('two updates racing on one version, the other process’s clock ahead: stamps only go forward', async (t) => {
  const { wire, a, b } = await setup(t, 'stamps');
  const before = (await a.get(notes, 1))!;
  // b's clock runs an hour ahead: its write's stamp is in a's future.
  const ahead = new Date(Date.parse(before.updated) + 3_600_000).toISOString();
  const held = holdWrite(wire, 'update');
  const updating = updateMember(a, notes, 1, { text: 'a' });
  await held.reached; // a read `before`, and is about to write on it
  t.ok((await b.replace(notes, 1, { text: 'b' }, ahead, before.updated)).ok, 'b writes first, stamped an hour ahead');
  held.release();
  const stored = await updating;
  t.equal(stored.text, 'a', 'a read again and wrote');
  t.ok(stored.updated > ahead, `a's stamp (${stored.updated}) is after b's (${ahead}), though a's clock is behind`);
  t.same(await b.get(notes, 1), { id: 1, updated: stored.updated, text: 'a' }, 'as stored');
});
