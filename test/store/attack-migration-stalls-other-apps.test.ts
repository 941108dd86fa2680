// One app's model change migrated its SQLite table (CREATE INDEX over every member, values
// rewritten for a type change) synchronously on the event loop, which every app of the process
// shares: turning on "index": true for 20 fields of 40,000 members held it for about a third of a
// second, during which no other app's request was answered; a tenant could repeat it at will by
// toggling its model file. The migration runs in the migration thread now (migrator.ts): other
// apps' requests are answered while it is under way, and the migrating collection's wait for it.

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import type { Model } from '../../src/model/types.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel, type FieldSpec } from '../fixtures/models.ts';
import { keepWriterThread } from '../helpers/writer-thread.ts';
import { collect, filter, query } from './conformance.ts';

const writer = await keepWriterThread();
t.teardown(() => writer.close());

/** Members of app A's table: enough that the old migration held the event loop for hundreds of ms. */
const MEMBERS = 40_000;
const FIELDS = 20;

/** A's model: `code` (integer, or as `code`), and FIELDS string fields, indexed or not. */
function model(indexed: boolean, code: 'integer' | 'string' = 'integer'): Model {
  const fields: Record<string, FieldSpec> = { code: { type: code, index: false } };
  for (let i = 0; i < FIELDS; i++) fields[`f${i}`] = indexed ? 'string' : { type: 'string', index: false };
  return makeModel('things', fields);
}

/** A's file with MEMBERS members of `first`, written straight into the table its store made. */
async function seed(path: string, first: Model): Promise<void> {
  const store = await openSqliteStore(`sqlite:${path}`, '');
  await store.ensure(first);
  await store.close();
  const db = new DatabaseSync(path);
  const cols = first.declared.map((f) => f.name);
  const insert = db.prepare(`INSERT INTO things (updated, ${cols.join(', ')}, "~json", "~shape") VALUES (?, ${cols.map(() => '?').join(', ')}, ?, 1)`);
  db.exec('BEGIN');
  for (let i = 0; i < MEMBERS; i++) {
    const values = cols.map((c) => (c === 'code' ? i : `${c}-${(i * 7919) % MEMBERS}`));
    insert.run('2025-01-01T00:00:00.000Z', ...values, JSON.stringify(Object.fromEntries(cols.map((c, n) => [c, values[n]!]))));
  }
  db.exec('COMMIT');
  db.close();
}

const CHANGES = [
  { what: `${FIELDS} fields made "index": true`, before: model(false), after: model(true) },
  { what: 'an integer field made string (its values moved and rewritten)', before: model(false), after: model(false, 'string') },
];

for (const { what, before, after } of CHANGES) {
  t.test(`${what} over ${MEMBERS.toLocaleString('en')} members: another app is served meanwhile`, async (t) => {
    const dir = t.testdir();
    await seed(join(dir, 'a.sqlite'), before);
    const a = await openSqliteStore(`sqlite:${join(dir, 'a.sqlite')}`, '');
    t.teardown(() => a.close());
    const b = await openSqliteStore(`sqlite:${join(dir, 'b.sqlite')}`, '');
    t.teardown(() => b.close());
    const notes = makeModel('notes', { text: 'string' });
    await b.insert(notes, { text: 'first' }, new Date().toISOString());
    t.equal(await a.count(before, []), MEMBERS, 'A as it was');
    // Another collection of A.
    const tags = makeModel('tags', { name: 'string' });
    await a.insert(tags, { name: 'first' }, new Date().toISOString());

    // The event loop's longest stall, seen by a timer of 1 ms.
    let last = performance.now();
    let longest = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    t.teardown(() => clearInterval(tick));

    const started = performance.now();
    let ended = Infinity;
    const migration = a.ensure(after).then(() => {
      ended = performance.now();
    });
    // A request of the migrating collection, made during the change: it waits for it. So does a
    // write to A's other collection (the migration holds the file's write lock).
    const waiting = a.insert(after, { code: after.declared[0]!.type === 'string' ? 'new' : -1, f0: 'new' }, new Date().toISOString());
    let tagWritten = Infinity;
    const tagWrite = a.insert(tags, { name: 'during' }, new Date().toISOString()).then((m) => {
      tagWritten = performance.now();
      return m;
    });
    // App B's requests, one after another, each a round trip to the writer thread and a timer's turn.
    let served = 0;
    let written = 0;
    let tagReads = 0;
    while (ended === Infinity && performance.now() - started < 30_000) {
      await b.insert(notes, { text: `during ${written++}` }, new Date().toISOString());
      await sleep(1);
      // A read of A's other collection.
      const tag = await a.get(tags, 1);
      if (ended === Infinity) {
        served++;
        if (tag?.name === 'first') tagReads++;
      }
    }
    await migration;
    const took = ended - started;
    // The timer's gap is seen when it next runs.
    await sleep(20);
    clearInterval(tick);
    t.ok(served >= 3, `B's writes answered while A's migration (${took.toFixed(0)} ms) was under way: ${served}`);
    t.ok(tagReads >= 3, `reads of A's other collection answered meanwhile: ${tagReads}`);
    t.ok(longest < took / 2, `the event loop's longest stall (${longest.toFixed(0)} ms) is well under the migration's ${took.toFixed(0)} ms`);

    const member = await waiting;
    t.equal(member.f0, 'new', 'the write to A made during the change was stored, after it');
    t.equal(await a.count(after, []), MEMBERS + 1, 'every member of A');
    t.same((await collect(a.list(after, query({ filters: [filter('f0', 'exact', 'new')] })))).map((m) => m.id), [member.id], 'A as the new model reads it');
    t.same((await a.get(after, 1))?.code, after.declared[0]!.type === 'string' ? '0' : 0, 'a member from before the change, in the new type');
    t.equal(await b.count(notes, []), 1 + written, 'every write of B stored');
    t.equal((await tagWrite).name, 'during', "the write to A's other collection was stored");
    t.ok(tagWritten >= ended, 'once the migration ended');
    t.equal(await a.count(tags, []), 2, "both of A's other collection");
  });
}
