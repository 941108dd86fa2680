// An unfiltered page and its total are one snapshot (README "Collection queries": "an unfiltered
// page of at most 32 ... is read with its total from one snapshot ..., so that a write between
// them cannot make them disagree"). A member written before its model gained a field has JSON
// text for the old fields: #page builds it from its columns, read again by id (#member), after the
// statement that read the page and the count. A delete committed in between (by the writer thread
// or another process, at any moment) drops the member from the page, while the total still counts
// it: a first page shorter than its count, yet a larger total. Here that commit is made to happen
// exactly there, from another connection, as in page-count-one-snapshot.test.ts.

import t from 'tap';
import { makeModel } from '../fixtures/models.ts';
import { commitBetween } from '../helpers/commit-between.ts';

const snapshot = await commitBetween(t);
const { store } = snapshot;
const before = makeModel('items', { name: 'string' });
for (const name of ['a', 'b', 'c', 'd']) await store.insert(before, { name }, new Date().toISOString());
// The model gains a field: the four rows keep the text of the old fields (an older shape).
const model = makeModel('items', { name: 'string', extra: 'integer' });
await store.ensure(model);

for (const [format, id] of [['pageJson', 2], ['page', 3]] as const) {
  t.test(`${format}: a first page of members of an older shape and its total are one snapshot`, async (t) => {
    // Another writer's commit (member `id` deleted), made when the store first reads a member by id.
    snapshot.commitWhen(/WHERE "id" = \?$/, (other) => other.prepare(`DELETE FROM "items" WHERE "id" = ?`).run(id));
    const query = { filters: [], order: [{ field: 'id', desc: false }], start: 0, count: 5 };
    const page = format === 'pageJson' ? await store.pageJson!(model, query) : await store.page!(model, query);
    t.notOk(snapshot.armed, 'the delete was made during the read');
    t.ok(page);
    const n = format === 'pageJson' ? (page as { texts: string[] }).texts.length : (page as { members: unknown[] }).members.length;
    t.equal(page!.total, n, `a first page shorter than its count holds every member: ${n} members, total ${page!.total}`);
  });
}
