// The SQLite store's pageJson: a page and its total read together (filtered: in one pass). It must
// give what listJson then count give, for every query it answers, and save the count only when it can;
// its twin page, the members list gives.
// And getJson: a member as its stored text, the same text JSON.stringify gives for get's member.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseQuery } from '../../src/model/query.ts';
import type { Query } from '../../src/model/types.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { orderWalkIsBounded } from '../../src/store/sqlite/sql.ts';
import { Statements } from '../../src/store/sqlite/statements.ts';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';

const model = makeModel('people', { name: 'string', born: 'date', level: 'integer', note: { type: 'string', index: false } });
const query = (q: string): Query => parseQuery(model, new URLSearchParams(q), []);

/** 60 members: names over a few first letters, days and levels cycling, so filters cut them unevenly. */
async function seed(store: Store): Promise<void> {
  const letters = 'aaaaabbbcd';
  for (let i = 0; i < 60; i++) {
    const day = String(1 + (i % 7)).padStart(2, '0');
    await store.insert(model, { name: `${letters[i % letters.length]}${String(59 - i).padStart(2, '0')}`, born: `1990-01-${day}`, level: i % 4, note: `n${i % 3}` }, new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString());
  }
  // Members without a name (absent sorts first), and members written under an older model (their
  // stored JSON text is of another shape, so they are read from their columns).
  for (let i = 0; i < 4; i++) await store.insert(model, { born: '1990-01-03', level: i }, new Date(Date.UTC(2025, 0, 2, 0, 0, i)).toISOString());
  const older = makeModel('people', { name: 'string', born: 'date', level: 'integer' });
  for (let i = 0; i < 6; i++) await store.insert(older, { name: `a9${i}`, born: '1990-01-03', level: i % 4 }, new Date(Date.UTC(2025, 0, 3, 0, 0, i)).toISOString());
  await store.ensure(model);
}

/** What the default handler read before pageJson: the page, then a count. */
async function expected(store: Store, q: Query): Promise<{ texts: string[]; total: number }> {
  const texts: string[] = [];
  for await (const text of store.listJson(model, q)) texts.push(text);
  return { texts, total: await store.count(model, q.filters) };
}

const FILTERS = [
  '',
  'name__startswith=a',
  'name__startswith=a&born__day=3',
  'name__startswith=b&level=2',
  'name__startswith=z',
  'name__gte=b',
  'name__lt=b&note=n1',
  'name=a04',
  'level=1',
  'born__day=2',
  'note=n2',
  'name__in=a04,b03,a90,a95&born__day=3',
  'name__isnull=true',
  'name__isnull=false&level=0',
  'id__gt=50&id__lt=64',
];
const ORDERS = ['order_by=name', 'order_by=-name', 'order_by=level', '', 'order_by=note', 'order_by=-id'];
const PAGES = ['count=1', 'count=5', 'count=10', 'start=3&count=5', 'start=10&count=10', 'start=40&count=10', 'start=5&count=32', 'count=0', 'count=33'];

for (const kind of ['memory', 'file'] as const) {
  t.test(`${kind}: every page it answers is listJson's page with count's total, and page's the members list gives`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-page-json-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const store = await openSqliteStore(kind === 'memory' ? 'sqlite::memory:' : `sqlite:${join(dir, 'svc.sqlite')}`, '');
    t.teardown(() => store.close());
    await seed(store);
    let answered = 0;
    for (const f of FILTERS) {
      for (const o of ORDERS) {
        for (const p of PAGES) {
          const q = query([f, o, p].filter(Boolean).join('&'));
          const got = await store.pageJson!(model, q);
          const members = await store.page!(model, q);
          t.equal(members === undefined, got === undefined, `${f}&${o}&${p}: page answers what pageJson answers`);
          if (got === undefined) continue;
          answered++;
          t.same(got, await expected(store, q), `${f}&${o}&${p}`);
          // As members: list's members in list's order (key order included: Atom renders in it).
          const listed = [];
          for await (const m of store.list(model, q)) listed.push(m);
          t.strictSame(members, { members: listed, total: got.total }, `${f}&${o}&${p}: page`);
          t.same(members!.members.map((m) => Object.keys(m)), listed.map((m) => Object.keys(m)));
        }
      }
    }
    t.ok(answered >= 100, `it answered ${answered} of the queries`);
  });
}

t.test('it counts only when the matches run past the page after its own', async (t) => {
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  await seed(store);
  // Count queries, on the event loop (this store is in memory: nothing leaves it).
  let counts = 0;
  const row = Statements.prototype.row;
  Statements.prototype.row = function (sql, params) {
    if (sql.startsWith('SELECT count(*)')) counts++;
    return row.call(this, sql, params);
  };
  t.teardown(() => {
    Statements.prototype.row = row;
  });
  // 36 names start with "a" (6 written under the older model); 11 of them are born on day 3.
  const few = await store.pageJson!(model, query('name__startswith=a&born__day=3&order_by=name&count=6'));
  t.equal(few?.texts.length, 6);
  t.equal(few?.total, 11);
  t.equal(counts, 0, 'the matches ran out within two pages: no count query');
  const many = await store.pageJson!(model, query('name__startswith=a&order_by=name&count=5'));
  t.equal(many?.total, 36);
  t.equal(counts, 1, 'more than two pages of matches: counted');
  const past = await store.pageJson!(model, query('name__startswith=a&order_by=name&start=40&count=5'));
  t.same(past, { texts: [], total: 36 }, 'an empty page past the first is counted');
  t.equal(counts, 2);
  const all = await store.pageJson!(model, query('order_by=name&count=5'));
  t.equal(all?.total, 70, "unfiltered: the collection's count");
  t.equal(all?.texts.length, 5);
  t.equal(counts, 2, 'which is kept, not counted');
});

t.test("an unfiltered page and its total are one snapshot: a write between the page and the count can't make them disagree", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-page-json-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = await openSqliteStore(`sqlite:${join(dir, 'svc.sqlite')}`, '');
  t.teardown(() => store.close());
  await seed(store);
  // Another connection to the file (another process, say) writes while the store reads: from
  // inside the page's read, after its rows and before its count.
  const { DatabaseSync } = await import('node:sqlite');
  const writer = new DatabaseSync(join(dir, 'svc.sqlite'));
  t.teardown(() => writer.close());
  const rows = Statements.prototype.rows;
  t.teardown(() => {
    Statements.prototype.rows = rows;
  });
  let wrote = false;
  Statements.prototype.rows = function (sql, params) {
    const got = rows.call(this, sql, params);
    if (!wrote && sql.includes('LIMIT')) {
      // A member and, by trigger, the collection's count, as the store's insert writes them.
      writer.exec(`INSERT INTO "people" ("updated", "name") VALUES ('2025-02-01T00:00:00.000Z', 'zz')`);
      wrote = true;
    }
    return got;
  };
  const page = await store.pageJson!(model, query('order_by=name&count=5'));
  Statements.prototype.rows = rows;
  t.ok(wrote, 'the write was made during the read');
  t.equal(page?.total, 70, 'the total of the snapshot the page was read from');
  t.equal(await store.count(model, []), 71, 'the write is there for the next read');
});

t.test('it answers only a page whose order walk a filter bounds', async (t) => {
  const unindexed = new Set(['note']);
  const bounded = (q: string) => orderWalkIsBounded(query(q), unindexed);
  t.ok(bounded('name__startswith=a&born__day=3&order_by=name'), 'a range of the order field');
  t.ok(bounded('name=a04&order_by=-name'), 'exact, descending');
  t.ok(bounded('id__gt=5'), 'the default order is by id');
  t.notOk(bounded('born__day=3&order_by=name'), 'a date part bounds no index: the walk would run the whole name index');
  t.notOk(bounded('name__startswith=a&order_by=level'), 'a range of another field');
  t.notOk(bounded('name__contains=a&order_by=name'), 'contains reads no range');
  t.notOk(bounded('note=n1&order_by=note'), 'an unindexed order field');
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  await seed(store);
  t.equal(await store.pageJson!(model, query('born__day=3&order_by=name&count=5')), undefined);
  t.equal(await store.pageJson!(model, query('name__startswith=a&order_by=name')), undefined, 'unpaged');
  t.equal(await store.pageJson!(model, query('name__startswith=a&order_by=name&count=33')), undefined, 'over PAGE_WITH_TOTAL');
});

t.test("getJson gives each member as JSON.stringify of get's member, with its updated; null for an id that is not there", async (t) => {
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  await seed(store);
  let checked = 0;
  // Ids 61-70 were written under the older model: their text is built from their columns.
  for (let id = 1; id <= 70; id++) {
    const member = await store.get(model, id);
    t.same(await store.getJson!(model, id), { updated: member!.updated, text: JSON.stringify(member) }, `member ${id}`);
    checked++;
  }
  t.equal(checked, 70);
  t.equal(await store.getJson!(model, 71), null);
  t.equal(await store.getJson!(model, 0), null);
  await store.delete(model, 5);
  t.equal(await store.getJson!(model, 5), null, 'a deleted member');
});

t.test('texts over 16 KiB are not read by the walk, which may read a page past its own, but by id for the page', async (t) => {
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  const big = makeModel('big', { name: 'string', body: 'text' });
  // Every third member's text is over 16 KiB (16,384 bytes): 20,000 characters of which some take 2 bytes.
  for (let i = 0; i < 30; i++) await store.insert(big, { name: `${'ab'[i % 2]}${String(i).padStart(2, '0')}`, body: i % 3 === 0 ? 'é'.repeat(8200) : `short ${i}` }, new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString());
  const byId: string[] = [];
  const row = Statements.prototype.row;
  Statements.prototype.row = function (sql, params) {
    if (sql.includes('"id" = ?')) byId.push(String(params?.[0]));
    return row.call(this, sql, params);
  };
  t.teardown(() => {
    Statements.prototype.row = row;
  });
  for (const q of ['name__startswith=a&order_by=name&count=4', 'name__startswith=b&order_by=-name&start=2&count=5', 'name__gte=a10&order_by=name&count=20']) {
    const parsed = parseQuery(big, new URLSearchParams(q), []);
    byId.length = 0;
    const got = await store.pageJson!(big, parsed);
    const read = [...byId];
    const texts: string[] = [];
    for await (const text of store.listJson(big, parsed)) texts.push(text);
    t.same(got, { texts, total: await store.count(big, parsed.filters) }, q);
    const large = texts.map((text) => JSON.parse(text) as { id: number; body: string }).filter((m) => m.body.length > 100).map((m) => String(m.id));
    t.ok(large.length > 0, `${q}: the page has large members`);
    t.same(read, large, `${q}: read by id, those of the page only`);
  }
});
