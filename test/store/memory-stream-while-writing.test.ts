// A streamed (unpaged) list while writes happen returns each member once. On a file the stream
// reads a snapshot of its own (a read-only connection, sqlite-store.ts #stream). In
// `sqlite::memory:` the database is private to its one connection: the stream steps a statement
// on the connection the writes run on (GroupCommit on the event loop), between the members the
// consumer takes. A write there changes what the statement still has to step: a member updated to
// a later place in the list's order (a slow client takes the list while another request renames a
// member) is read again.

import t from 'tap';
import type { Member } from '../../src/model/types.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../fixtures/models.ts';

const model = makeModel('items', { name: 'string' });
const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

for (const how of ['list', 'listJson'] as const) {
  t.test(`${how}: a member renamed to a later place while the list streams is listed once`, async (t) => {
    const store = await openSqliteStore('sqlite::memory:', '');
    t.teardown(() => store.close());
    // More than a small page (32): the list streams.
    for (let i = 1; i <= 40; i++) await store.insert(model, { name: `a${String(i).padStart(2, '0')}` }, stamp(i));
    const query = { filters: [], order: [{ field: 'name', desc: false }], start: 0 };
    const rows = how === 'list' ? store.list(model, query) : store.listJson(model, query);
    const seen: number[] = [];
    for await (const m of rows) {
      seen.push(typeof m === 'string' ? (JSON.parse(m) as Member).id : m.id);
      // Member 1, already listed, moves to the end of the order (another request's update).
      if (seen.length === 5) t.ok((await store.replace(model, 1, { name: 'zz' }, stamp(100))).ok, 'renamed');
    }
    t.same(seen.filter((id) => id === 1).length, 1, `member 1 listed once: ${JSON.stringify(seen)}`);
    t.equal(new Set(seen).size, seen.length, 'no member listed twice');
    t.equal(seen.length, 40, 'each member listed');
  });
}
