// The MongoDB translation means what SQLite means: random models, data and queries, run on the SQLite
// store and, translated, through mingo (an independent implementation of MongoDB's query language)
// over the documents the MongoDB store would hold (with the date parts its declared indexes name).
// Same members, same order, same count.
//
// Where mingo is known to differ from a real MongoDB server, the generator stays out of the way
// (a real server decides those cases; README "MongoDB" lists what only a server proves):
// - Strings: mingo compares JavaScript strings (UTF-16 units), MongoDB and SQLite compare UTF-8
//   bytes (code points). They differ only between U+E000–U+FFFF and characters beyond U+FFFF, so
//   the alphabet has none of U+E000–U+FFFF.
// - Case-insensitive regexes: mingo runs JavaScript's (simple case mapping, no `u` flag), MongoDB
//   runs PCRE's (Unicode case folding), SQLite lower-cases with String.toLowerCase (full mapping).
//   They agree on letters whose lower case is one character with the same folding (a/A, é/É,
//   ж/Ж); the alphabet holds only such letters (not ß, ẞ, İ, Σ, the Kelvin sign…).
// - Comparison type brackets for null/missing and mixed types: the MongoDB store never writes null
//   (absent fields have no key) and writes one type per field, so the documents here do the same.
// - Array sort order: no member value is an array.
//
// Replay a failure with SVC_PROPERTY_SEED=<seed> (and SVC_PROPERTY_PATH=<path>) from its message.

import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { find } from 'mingo';
import t from 'tap';
import { CONDITIONS_BY_TYPE } from '../../src/model/query.ts';
import type { Condition, DeclaredType, FieldType, Filter, Member, MemberData, Model, Order, Query, Value } from '../../src/model/types.ts';
import { FIELD_TYPES } from '../../src/model/types.ts';
import { toDocument, toMember, type MemberDocument } from '../../src/store/mongodb/documents.ts';
import { translateFilters, translateQuery } from '../../src/store/mongodb/translate.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { indexDef, makeModel } from '../fixtures/models.ts';
import { collect } from './conformance.ts';

/** Data sets (models with members); each is queried QUERIES_PER_SET times. */
const RUNS = Number(process.env.SVC_PROPERTY_RUNS ?? 1000);
const QUERIES_PER_SET = 8;

// Regex metacharacters, LIKE wildcards, NUL and newline (PCRE's `$`), letters with and without case.
const ALPHABET = ['a', 'b', 'A', 'B', 'z', '0', ' ', '%', '_', '\\', '.', '*', '$', '^', '(', '[', '|', '?', '+', '-', '\n', '\0', 'é', 'É', 'ж', 'Ж', '😀'];
const FIELD_NAMES = ['a', 'b', 'Name', 'name', '_id', 'ID', 'x_1'];
const STAMPS = ['2024-12-31T23:59:59.999Z', '2025-01-01T00:00:00.000Z', '2025-03-05T10:00:00.000Z', '2025-11-30T08:00:00.000Z'];

/** Strings over ALPHABET, mostly of its first letters so that needles often match. */
const text = (maxLength: number) =>
  fc.string({ unit: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('a', 'A', 'b') }, { weight: 2, arbitrary: fc.constantFrom(...ALPHABET) }), maxLength });

/** Values of each type, from small domains so that filters match and orders tie. */
const VALUES: Record<FieldType, fc.Arbitrary<Value>> = {
  string: text(4),
  text: text(6),
  integer: fc.constantFrom(-3, -1, 0, 1, 2, 7, 1_000_000, 2 ** 40),
  float: fc.constantFrom(-2, -1.5, 0, 0.25, 1, 2, 3.75, 1e10),
  boolean: fc.boolean(),
  date: fc.constantFrom('0999-03-01', '1999-01-05', '2000-02-01', '2023-12-31', '2024-01-15', '2024-02-29', '2024-12-05'),
  'date-time': fc.constantFrom('1999-01-05T12:30:00.000Z', '2000-01-01T00:00:00.000Z', '2024-02-29T23:59:59.999Z', '2024-07-04T08:00:00.000Z', '2024-12-05T00:00:00.000Z'),
  auto: fc.integer({ min: 0, max: 25 }),
};
/** `updated` is a date-time field whose values come from STAMPS. */
const valueOf = (field: string, type: FieldType) => (field === 'updated' ? fc.oneof(fc.constantFrom(...STAMPS), VALUES['date-time']) : VALUES[type]);

interface DataSet {
  readonly fields: [string, DeclaredType][];
  /** Declared indexes, each of one date part (`born__day`). */
  readonly indexes: string[][];
  readonly members: { data: MemberData; updated: string }[];
  /** Ids (1-based) deleted after inserting, leaving gaps. */
  readonly deleted: number[];
  readonly queries: Query[];
}

function filterArb(field: string, type: FieldType): fc.Arbitrary<Filter> {
  return fc.constantFrom(...CONDITIONS_BY_TYPE[type]).chain((condition: Condition) => {
    const v = valueOf(field, type);
    const textual = type === 'string' || type === 'text';
    let value: fc.Arbitrary<Value | Value[]>;
    switch (condition) {
      case 'in':
        value = fc.array(fc.oneof({ weight: 9, arbitrary: v }, { weight: 1, arbitrary: fc.constant(null) }), { maxLength: 3 });
        break;
      case 'range':
        value = fc.tuple(v, v);
        break;
      case 'isnull':
        value = fc.boolean();
        break;
      // Mostly parts the values have; sometimes any, out of range included (the model API passes them on).
      case 'year':
        value = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(999, 1999, 2000, 2023, 2024) }, { weight: 1, arbitrary: fc.constantFrom(-1, 0, 2025, 9999, 10000) });
        break;
      case 'month':
        value = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(1, 2, 3, 7, 12) }, { weight: 1, arbitrary: fc.integer({ min: -1, max: 13 }) });
        break;
      case 'day':
        value = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(1, 4, 5, 15, 29, 31) }, { weight: 1, arbitrary: fc.integer({ min: -1, max: 32 }) });
        break;
      default:
        // Text conditions take needles from the alphabet; a null value only through the model API.
        value = fc.oneof({ weight: 12, arbitrary: textual && condition !== 'exact' ? text(3) : v }, { weight: 1, arbitrary: fc.constant(null) });
    }
    return value.map((value) => ({ field, condition, value }));
  });
}

function queryArb(all: [string, FieldType][]): fc.Arbitrary<Query> {
  const field = fc.constantFrom(...all);
  return fc.record({
    filters: fc.array(field.chain(([name, type]) => filterArb(name, type)), { maxLength: 3, size: 'max' }),
    order: fc.array(fc.record({ field: field.map(([name]) => name), desc: fc.boolean() }), { maxLength: 3 }) as fc.Arbitrary<Order[]>,
    start: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 0, max: 25 }) }),
    count: fc.option(fc.integer({ min: 0, max: 25 }), { nil: undefined }),
  }).map(({ count, ...q }) => (count === undefined ? q : { ...q, count }));
}

const dataSetArb: fc.Arbitrary<DataSet> = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...FIELD_NAMES), fc.constantFrom(...FIELD_TYPES)), { minLength: 1, maxLength: 4, selector: ([name]) => name })
  .chain((fields) => {
    const all: [string, FieldType][] = [['id', 'auto'], ['updated', 'date-time'], ...fields];
    const data = fc.tuple(...fields.map(([, type]) => fc.option(VALUES[type], { nil: null, freq: 3 }))).map((vs) => {
      const d: MemberData = {};
      fields.forEach(([name], i) => {
        if (vs[i] !== null) d[name] = vs[i]!;
      });
      return d;
    });
    // Some date parts declared in indexes: the MongoDB store then keeps them in each document and compares them there.
    const parts = fields.filter(([, type]) => type === 'date' || type === 'date-time').flatMap(([name]) => [`${name}__month`, `${name}__day`]);
    return fc.record({
      fields: fc.constant(fields),
      indexes: fc.subarray(parts).map((keys) => keys.map((k) => [k])),
      members: fc.array(fc.record({ data, updated: fc.constantFrom(...STAMPS) }), { maxLength: 20, size: 'max' }),
      deleted: fc.uniqueArray(fc.integer({ min: 1, max: 20 }), { maxLength: 4 }),
      queries: fc.array(queryArb(all), { minLength: QUERIES_PER_SET, maxLength: QUERIES_PER_SET }),
    });
  });

/** The query run by mingo as the MongoDB store runs it: find(filter).sort().skip().limit(). */
function viaMingo(model: Model, docs: readonly MemberDocument[], query: Query): Member[] {
  const f = translateQuery(model, query);
  let cursor = find(docs as MemberDocument[], f.filter).sort(f.sort).skip(f.skip);
  if (f.limit !== undefined) cursor = cursor.limit(f.limit);
  return cursor.all().map((doc) => toMember(model, doc as MemberDocument));
}

let sets = 0;
let queries = 0;
/** Queries whose filters matched some members but not all: the ones that tell translations apart. */
let selective = 0;
/** Queries with filters over at least two members. */
let filtered = 0;

async function check(ds: DataSet): Promise<void> {
  const model = makeModel('m', Object.fromEntries(ds.fields), { indexes: ds.indexes.map((keys) => indexDef(...keys)) });
  const store = await openSqliteStore('sqlite::memory:', '');
  try {
    const inserted = await Promise.all(ds.members.map((m) => store.insert(model, m.data, m.updated)));
    let docs = inserted.map((m, i) => toDocument(model, m.id, m.updated, ds.members[i]!.data));
    for (const id of ds.deleted) await store.delete(model, id);
    docs = docs.filter((d) => !ds.deleted.includes(d._id));
    for (const query of ds.queries) {
      const expected = await collect(store.list(model, query));
      const actual = viaMingo(model, docs, query);
      if (!isDeepStrictEqual(actual, expected)) {
        throw new Error(
          `members differ for ${JSON.stringify(query)}\n` +
            `  translated: ${JSON.stringify(translateQuery(model, query))}\n` +
            `  SQLite: ${JSON.stringify(expected.map((m) => m.id))}\n  mingo:  ${JSON.stringify(actual.map((m) => m.id))}`,
        );
      }
      const total = await store.count(model, query.filters);
      const counted = find(docs as MemberDocument[], translateFilters(model, query.filters)).all().length;
      if (counted !== total) throw new Error(`count differs for ${JSON.stringify(query.filters)}: SQLite ${total}, mingo ${counted}`);
      queries++;
      if (total > 0 && total < docs.length) selective++;
      if (query.filters.length > 0 && docs.length > 1) filtered++;
    }
    sets++;
  } finally {
    await store.close();
  }
}

t.test('SQLite and the MongoDB translation (through mingo) agree', async (t) => {
  const seed = process.env.SVC_PROPERTY_SEED === undefined ? Date.now() ^ (Math.random() * 0x100000000) : Number(process.env.SVC_PROPERTY_SEED);
  const path = process.env.SVC_PROPERTY_PATH;
  const started = performance.now();
  const result = await fc.check(fc.asyncProperty(dataSetArb, check), { numRuns: RUNS, seed, ...(path ? { path } : {}), endOnFailure: false });
  if (result.failed) {
    t.fail(`seed ${seed}: ${fc.defaultReportMessage(result)}`);
    t.comment(`replay: SVC_PROPERTY_SEED=${seed} SVC_PROPERTY_PATH=${result.counterexamplePath} npx tap test/store/translate-property.test.ts`);
  } else {
    t.pass(`${sets} data sets, ${queries} queries (seed ${seed}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // A generator that drifted to filters matching all or nothing would prove little.
    t.ok(selective > filtered / 4, `${selective} of ${filtered} filtered queries matched some members but not all`);
  }
});
