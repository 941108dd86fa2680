// An unfiltered page and its total are one snapshot (Store.pageJson: "A page and its total,
// in one read"). The writer thread commits at any moment; a commit between the page's statement
// and the count read after an empty page (sqlite-store.ts #page) gives a total that the page
// contradicts: no member on a first page, yet a total of 1. Here that commit is made to happen
// exactly there, from another connection, as the writer thread's would.

import t from 'tap';
import { makeModel } from '../fixtures/models.ts';
import { commitBetween } from '../helpers/commit-between.ts';

const snapshot = await commitBetween(t);
const { store } = snapshot;
const model = makeModel('items', { name: 'string' });
await store.ensure(model);

t.test('an empty first page and its total are one snapshot', async (t) => {
  // Another writer's commit, made when the store reads the collection's kept count.
  snapshot.commitWhen(/SELECT count FROM svc_collections/, (other) => other.prepare(`INSERT INTO "items" ("updated", "name") VALUES ('2025-01-01T00:00:00.000Z', 'late')`).run());
  const page = await store.pageJson!(model, { filters: [], order: [{ field: 'updated', desc: true }], start: 0, count: 3 });
  t.notOk(snapshot.armed, 'the insert was made during the read');
  t.ok(page);
  t.equal(page!.total, page!.texts.length, `a first page shorter than its count holds every member: ${page!.texts.length} texts, total ${page!.total}`);
});
