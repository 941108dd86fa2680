// An unfiltered page and its total are one snapshot (Store.pageJson: "A page and its total,
// in one read"). The writer thread commits at any moment; a commit between the page's statement
// and the count read after an empty page (sqlite-store.ts #page) gives a total that the page
// contradicts: no member on a first page, yet a total of 1. Here that commit is made to happen
// exactly there, from another connection, as the writer thread's would.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { Statements } from '../../src/store/sqlite/statements.ts';
import { makeModel } from '../fixtures/models.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-review-'));
const path = join(dir, 'data.db');
const store = await openSqliteStore(`sqlite:${path}`, '');
const model = makeModel('items', { name: 'string' });
await store.ensure(model);
const other = new DatabaseSync(path);
t.teardown(async () => {
  other.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

// Another writer's commit, made when the store reads the collection's kept count.
let armed = false;
const row = Statements.prototype.row;
Statements.prototype.row = function (sql, params) {
  if (armed && /SELECT count FROM svc_collections/.test(sql)) {
    armed = false;
    other.prepare(`INSERT INTO "items" ("updated", "name") VALUES ('2025-01-01T00:00:00.000Z', 'late')`).run();
  }
  return row.call(this, sql, params);
};
t.teardown(() => void (Statements.prototype.row = row));

t.test('an empty first page and its total are one snapshot', async (t) => {
  armed = true;
  const page = await store.pageJson!(model, { filters: [], order: [{ field: 'updated', desc: true }], start: 0, count: 3 });
  t.ok(page);
  t.equal(page!.total, page!.texts.length, `a first page shorter than its count holds every member: ${page!.texts.length} texts, total ${page!.total}`);
});
