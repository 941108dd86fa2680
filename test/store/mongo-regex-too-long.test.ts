// A text condition that fits in a URL (8 KiB, README "Limits") must stay a query MongoDB accepts:
// escapeRegex wrote ASCII punctuation as `\\xHH`, 5,000 dots a 20,000-byte pattern (500 on MongoDB).
// MongoDB refuses a $regex pattern over 16,384 bytes (error 51091, jstests/core/regex_limit.js),
// while the SQLite store answers the same query.
import t from 'tap';
import { parseQuery, queryParams } from '../../src/model/query.ts';
import { translateFilters } from '../../src/store/mongodb/translate.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../fixtures/models.ts';
import { collect } from '../store/conformance.ts';

const MONGODB_MAX_REGEX_BYTES = 16_384;
const MODEL = makeModel('notes', { name: 'string', body: 'text' });

t.test('a text condition as long as a URL may carry, of the characters escaped: SQLite answers it, and its pattern is within MongoDB\'s limit', async (t) => {
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  await store.insert(MODEL, { name: '.'.repeat(8200), body: '.'.repeat(8200) }, '2025-01-01T00:00:00.000Z');
  for (const condition of ['contains', 'icontains', 'startswith', 'istartswith', 'iexact']) {
    const path = `/resources/notes?body__${condition}=`;
    // The longest value the default --max-url (8,192 bytes) lets through: punctuation, each written as two characters.
    const value = '.'.repeat(8192 - path.length);
    const query = { ...parseQuery(MODEL, queryParams(`body__${condition}=${value}`)), order: [] };
    if (condition !== 'iexact') t.equal((await collect(store.list(MODEL, query))).length, 1, `${condition}: SQLite finds the member`);
    const filter = translateFilters(MODEL, query.filters) as { body: { $regex: string } };
    const bytes = Buffer.byteLength(filter.body.$regex);
    t.ok(bytes <= MONGODB_MAX_REGEX_BYTES, `${condition}: the $regex pattern is ${bytes} bytes (MongoDB's limit: ${MONGODB_MAX_REGEX_BYTES})`);
  }
});
