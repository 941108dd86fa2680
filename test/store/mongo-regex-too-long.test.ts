// Every text condition a query may hold must stay a query MongoDB accepts, so that both stores
// answer the same queries: MongoDB refuses a $regex pattern over 16,384 bytes (error 51091,
// jstests/core/regex_limit.js), while the SQLite store answers any. escapeRegex wrote ASCII
// punctuation as `\\xHH` (5,000 dots in a URL made a 20,000-byte pattern: a 500 on MongoDB); and a
// handler's svc.collection().list() has no URL to bound it, so 9,000 dots or 5,000 emoji passed
// the limit still. A text condition is now at most MAX_TEXT_CONDITION_CHARS characters, for a
// URL and a handler alike (400 invalid-query, or the call throws), and the longest of the
// characters written widest (NUL as `\x00`, punctuation as `\` and itself, 4-byte UTF-8) fits.
import t from 'tap';
import { MAX_TEXT_CONDITION_CHARS, parseQuery } from '../../src/model/query.ts';
import { translateFilters } from '../../src/store/mongodb/translate.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { SvcError } from '../../src/errors.ts';
import { makeModel } from '../fixtures/models.ts';
import { collect } from '../store/conformance.ts';

const MONGODB_MAX_REGEX_BYTES = 16_384;
const MODEL = makeModel('notes', { name: 'string', body: 'text' });
const CONDITIONS = ['contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'iexact'];
// Each written widest by escapeRegex: 4 bytes (`\x00`), 2 (`\.`), 4 (UTF-8 of a code point past U+FFFF).
const WIDEST = ['\0', '.', '\u{1F600}'];

t.test('the longest text condition of the widest characters: SQLite answers it, and its pattern is within MongoDB\'s limit', async (t) => {
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  for (const ch of WIDEST) await store.insert(MODEL, { name: 'x', body: ch.repeat(MAX_TEXT_CONDITION_CHARS) }, '2025-01-01T00:00:00.000Z');
  for (const ch of WIDEST) {
    for (const condition of CONDITIONS) {
      const label = `${condition} of ${MAX_TEXT_CONDITION_CHARS} × U+${ch.codePointAt(0)!.toString(16).toUpperCase()}`;
      const query = { ...parseQuery(MODEL, [[`body__${condition}`, ch.repeat(MAX_TEXT_CONDITION_CHARS)]]), order: [] };
      t.equal((await collect(store.list(MODEL, query))).length, 1, `${label}: SQLite finds the member`);
      const filter = translateFilters(MODEL, query.filters) as { body: { $regex: string } };
      const bytes = Buffer.byteLength(filter.body.$regex);
      t.ok(bytes <= MONGODB_MAX_REGEX_BYTES, `${label}: the $regex pattern is ${bytes} bytes (MongoDB's limit: ${MONGODB_MAX_REGEX_BYTES})`);
    }
  }
});

t.test('one character more is refused for either store, naming the bound', async (t) => {
  for (const ch of WIDEST) {
    for (const condition of CONDITIONS) {
      const value = ch.repeat(MAX_TEXT_CONDITION_CHARS + 1);
      const err = (() => {
        try {
          parseQuery(MODEL, [[`body__${condition}`, value]]);
        } catch (e) {
          return e;
        }
      })();
      t.ok(err instanceof SvcError && err.code === 'invalid-query', `${condition}: invalid-query`);
      t.match((err as SvcError).message, `at most ${MAX_TEXT_CONDITION_CHARS} characters`, `${condition}: says how long it may be`);
    }
  }
  // Other conditions are not patterns: an exact value of any length is a query both stores answer.
  t.same(parseQuery(MODEL, [['body', '.'.repeat(MAX_TEXT_CONDITION_CHARS + 1)]]).filters.length, 1, 'exact is not bounded so');
});
