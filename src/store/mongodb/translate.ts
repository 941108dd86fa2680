// Translation of parsed collection queries into MongoDB find and count arguments. Pure: no driver, no I/O.
//
// Only the server writes operators and field paths: every key of the result is an operator chosen
// here or a document key derived from the model (documents.ts); every value from a query sits in
// an operand position as a literal (`$eq`, `$in`, a range bound, `$literal`), or escaped inside a
// `$regex`. The contract these implement is in ../store.ts.

import type { Condition, Filter, IndexPart, Model, Query, Value } from '../../model/types.ts';
import { CONDITIONS_BY_TYPE } from '../../model/query.ts';
import { datePartText, oneValue, orderTerms, pageOf, yearRange } from '../store.ts';
import { fieldKey, PART_START, storedPart } from './documents.ts';

/** A MongoDB query document (only plain objects, arrays and literal values). */
export type MongoFilter = { [key: string]: unknown };
/** Sort keys in priority order (keys are identifiers, never integer-like, so object order holds). */
export type MongoSort = Record<string, 1 | -1>;

/** What `find` is called with. `limit` undefined is "to the end": a page of 0 is written as a filter that matches nothing. */
export interface MongoFind {
  readonly filter: MongoFilter;
  readonly sort: MongoSort;
  readonly skip: number;
  readonly limit: number | undefined;
}

/** Matches no document (every document has an `_id`); served by the `_id` index with empty bounds. */
export const MATCH_NOTHING: MongoFilter = Object.freeze({ _id: Object.freeze({ $in: Object.freeze([]) }) });

/** The end of the input (PCRE's `$` would also match before a final newline; `\z` is not JavaScript). */
const END = '(?![\\s\\S])';

/**
 * `text` as a regular expression that matches exactly it: letters, digits and non-ASCII
 * characters stand for themselves, every other ASCII character is written `\` and itself, which
 * means the character itself in PCRE (MongoDB: a backslash before any character that is not a
 * letter or digit) and in JavaScript without the `u` flag (mingo) alike; NUL, which MongoDB refuses
 * raw in a pattern, is `\x00`. Not `\xHH` for all of them: MongoDB reads a `startswith` pattern's
 * index range from its literal prefix, which ends at the first backslash before a letter or digit
 * (`getRegexPrefixMatch`, analyze_regex.cpp), so `^\x2fdocs` read the whole index where `^\/docs`
 * reads the range of `/docs`; and `\xHH` took twice the bytes of MongoDB's 16,384-byte limit on a
 * pattern.
 */
export function escapeRegex(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    out += c === 0 ? '\\x00' : c < 0x80 && !/[A-Za-z0-9]/.test(ch) ? `\\${ch}` : ch;
  }
  return out;
}

/** A value as an operand: refuses anything but the literal values a Filter may hold. */
function literal(v: Value): Value {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
  throw new Error(`not a literal filter value: ${typeof v}`);
}

type Translate = (key: string, value: Value | Value[]) => MongoFilter;

const regex = (pattern: (text: string) => string, fold: boolean): Translate => (key, value) => {
  const source = pattern(escapeRegex(String(oneValue(value))));
  return { [key]: fold ? { $regex: source, $options: 'i' } : { $regex: source } };
};
const contains = (e: string) => e;
const prefix = (e: string) => `^${e}`;
const suffix = (e: string) => `${e}${END}`;
const whole = (e: string) => `^${e}${END}`;

/** A comparison with a value; a null bound compares with nothing (as SQL's NULL). */
const compare = (op: '$gt' | '$gte' | '$lt' | '$lte'): Translate => (key, value) => {
  const v = literal(oneValue(value));
  return v === null ? MATCH_NOTHING : { [key]: { [op]: v } };
};

/**
 * The 2-digit month or day of a canonical date string, from the part's first code point (as
 * documents.ts `partText` stores it when the model stores the part). A value that is not a
 * string (a field whose type changed) has no such part.
 */
const datePart = (part: IndexPart): Translate => (key, value) => {
  const text = datePartText(value);
  if (text === undefined) return MATCH_NOTHING;
  const field = { $cond: [{ $eq: [{ $type: `$${key}` }, 'string'] }, `$${key}`, ''] };
  return { $expr: { $eq: [{ $substrCP: [field, PART_START[part], 2] }, { $literal: text }] } };
};

/** How each condition reads as a MongoDB query on document key `key`. */
const CONDITION_MONGO: Record<Condition, Translate> = {
  // { $eq: null } matches absent keys too: what the contract asks of `exact` null.
  exact: (key, value) => ({ [key]: { $eq: literal(oneValue(value)) } }),
  iexact: regex(whole, true),
  contains: regex(contains, false),
  icontains: regex(contains, true),
  startswith: regex(prefix, false),
  istartswith: regex(prefix, true),
  endswith: regex(suffix, false),
  iendswith: regex(suffix, true),
  gt: compare('$gt'),
  gte: compare('$gte'),
  lt: compare('$lt'),
  lte: compare('$lte'),
  // $ne matches absent keys: absent is "not equal" (and $ne null is "present").
  ne: (key, value) => ({ [key]: { $ne: literal(oneValue(value)) } }),
  // $in with null matches absent keys, as the contract asks.
  in: (key, value) => ({ [key]: { $in: (Array.isArray(value) ? value : [value]).map(literal) } }),
  range: (key, value) => {
    const [low, high] = Array.isArray(value) ? value : [value, value];
    if (low === null || low === undefined || high === null || high === undefined) return MATCH_NOTHING;
    return { [key]: { $gte: literal(low), $lte: literal(high) } };
  },
  isnull: (key, value) => ({ [key]: oneValue(value) ? { $eq: null } : { $ne: null } }),
  // A range of the text, so the field's index serves it (as in SQLite).
  year: (key, value) => {
    const range = yearRange(value);
    return range === undefined ? MATCH_NOTHING : { [key]: { $gte: range[0], $lt: range[1] } };
  },
  month: datePart('month'),
  day: datePart('day'),
};

/** The query document of `filters`, all applying together; `{}` when there are none. */
export function translateFilters(model: Model, filters: readonly Filter[]): MongoFilter {
  const parts = filters.map((f) => {
    const field = model.fields.get(f.field);
    if (!field) throw new Error(`model ${model.name} has no field ${JSON.stringify(f.field)}`);
    if (!CONDITIONS_BY_TYPE[field.type].includes(f.condition)) {
      throw new Error(`condition ${f.condition} does not apply to ${field.type} field ${f.field}`);
    }
    // A part the documents store (the model's indexes name it) is compared as stored, in an index.
    const stored = f.condition === 'month' || f.condition === 'day' ? storedPart(model, f.field, f.condition) : undefined;
    if (stored) {
      const text = datePartText(f.value);
      return text === undefined ? MATCH_NOTHING : { [stored.key]: { $eq: text } };
    }
    return CONDITION_MONGO[f.condition](fieldKey(model, f.field), f.value);
  });
  // $and keeps two filters on one field apart (one object could hold only one of them).
  return parts.length === 0 ? {} : parts.length === 1 ? parts[0]! : { $and: parts };
}

/** The sort of `orderTerms(order)`: MongoDB sorts a missing key before every value, as the contract asks. */
export function translateOrder(model: Model, order: Query['order']): MongoSort {
  const sort: MongoSort = {};
  for (const o of orderTerms(order)) {
    const key = fieldKey(model, o.field);
    // A field ordered by again orders nothing (and would move in an object): the first term wins, as in SQL.
    if (!Object.hasOwn(sort, key)) sort[key] = o.desc ? -1 : 1;
  }
  return sort;
}

/** The find of a list query: filter, sort, skip and limit, all run by the server. */
export function translateQuery(model: Model, query: Query): MongoFind {
  const page = pageOf(query);
  return {
    filter: page.none ? MATCH_NOTHING : translateFilters(model, query.filters),
    sort: translateOrder(model, query.order),
    skip: page.skip,
    limit: page.none ? undefined : page.limit,
  };
}
