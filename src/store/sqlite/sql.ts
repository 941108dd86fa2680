// Translation of parsed collection queries (filters, order, slice) into SQLite SQL with bound parameters.
//
// Pure: takes the shape of a table and a query, returns SQL text and its parameters. Values are
// always bound (`?`), never written into the SQL; only identifiers are, double-quoted.

import type { SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { Condition, FieldType, Filter, IndexPart, Order, Query, Value } from '../../model/types.ts';
import { datePartText, oneValue as one, orderTerms, pageOf, yearRange } from '../store.ts';

/** One field as stored: the column that holds it and the field's current type. */
export interface Column {
  readonly field: string;
  readonly column: string;
  readonly type: FieldType;
}

/** A model's table: its name and its columns, `id` and `updated` first, then the declared fields. */
export interface TableShape {
  readonly table: string;
  readonly columns: readonly Column[];
}

export interface Sql {
  readonly sql: string;
  readonly params: SQLInputValue[];
}

/** The deterministic SQL function that lower-cases with full Unicode rules (SQLite's lower() is ASCII-only). */
export const LOWER_FUNCTION = 'svc_lower';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** The JS side of LOWER_FUNCTION: text (or text read as a BLOB, see textExpr) lower-cased. */
export function lowerCase(v: SQLOutputValue): SQLInputValue {
  if (typeof v === 'string') return v.toLowerCase();
  if (v instanceof Uint8Array) return decoder.decode(v).toLowerCase();
  return v;
}

/**
 * A string/text column as it reaches JS. node:sqlite (24.9) cuts text at its first NUL character
 * when it converts it to a JS string (in results and in function arguments), so text that holds
 * a NUL is passed as a BLOB and decoded in JS.
 */
export function textExpr(col: string): string {
  return `CASE WHEN instr(${col}, char(0)) THEN CAST(${col} AS BLOB) ELSE ${col} END`;
}

/** `col` lower-cased by LOWER_FUNCTION. */
function folded(col: string): string {
  return `${LOWER_FUNCTION}(${textExpr(col)})`;
}

/** `name` as an SQL identifier: double-quoted, inner quotes doubled (https://sqlite.org/lang_keywords.html). */
export function quoteIdent(name: string): string {
  if (name.length === 0 || name.includes('\0')) throw new Error(`invalid SQL identifier ${JSON.stringify(name)}`);
  return `"${name.replaceAll('"', '""')}"`;
}

/** A value as SQLite binds it: booleans are stored as 0/1. */
export function toSql(value: Value): SQLInputValue {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

const TEXT_TYPES: ReadonlySet<FieldType> = new Set(['string', 'text', 'date', 'date-time']);

/**
 * The smallest string greater than every string that starts with `prefix`, in code point order
 * (which is SQLite's BINARY order of UTF-8 text): the last code point incremented. Undefined when
 * no such string exists (the prefix is all U+10FFFF).
 */
export function prefixSuccessor(prefix: string): string | undefined {
  const cps = [...prefix].map((c) => c.codePointAt(0)!);
  while (cps.length > 0) {
    const last = cps.pop()!;
    if (last === 0x10ffff) continue;
    // Skip the surrogate range: lone surrogates cannot be stored as UTF-8.
    cps.push(last === 0xd7ff ? 0xe000 : last + 1);
    return String.fromCodePoint(...cps);
  }
  return undefined;
}

type Translate = (col: string, value: Value | Value[], column: Column) => Sql;

const FALSE: Sql = { sql: '0', params: [] };
const lower = (v: Value | Value[]): string => String(one(v)).toLowerCase();

function compare(op: string): Translate {
  // NULL compared with anything is NULL, so absent values never match (the contract in ../store.ts).
  return (col, value) => ({ sql: `${col} ${op} ?`, params: [toSql(one(value))] });
}

function startsWith(col: string, prefix: string, column: Column, fold: boolean): Sql {
  if (prefix === '') return { sql: `${col} IS NOT NULL`, params: [] };
  // Compared as UTF-8 bytes: SQLite's substr() of text stops counting characters at a NUL,
  // and a byte prefix that is whole UTF-8 is a character prefix.
  const bytes = encoder.encode(prefix);
  const exact = { sql: `substr(CAST(${fold ? folded(col) : col} AS BLOB), 1, ?) = ?`, params: [bytes.length, bytes] };
  if (fold || !TEXT_TYPES.has(column.type)) return exact;
  // A range on the column lets SQLite use the field's index. On a column of text affinity,
  // [prefix, successor) in BINARY order (memcmp of the UTF-8 bytes, whole length, NULs included)
  // holds exactly the texts that start with the prefix, and no number or BLOB (they sort before
  // and after all text): the range is the condition. Without a successor (a prefix of U+10FFFF
  // only), the substr() check bounds it.
  const succ = prefixSuccessor(prefix);
  if (succ !== undefined) return { sql: `${col} >= ? AND ${col} < ?`, params: [prefix, succ] };
  return { sql: `${col} >= ? AND ${exact.sql}`, params: [prefix, ...exact.params] };
}

function endsWith(col: string, suffix: string, fold: boolean): Sql {
  if (suffix === '') return { sql: `${col} IS NOT NULL`, params: [] };
  // substr(X, -n) is the last n bytes of a BLOB (all of X when it is shorter, which cannot be
  // equal); bytes, as in startsWith.
  const bytes = encoder.encode(suffix);
  return { sql: `substr(CAST(${fold ? folded(col) : col} AS BLOB), ?) = ?`, params: [-bytes.length, bytes] };
}

function contains(col: string, needle: string, fold: boolean): Sql {
  const expr = fold ? folded(col) : col;
  // instr() compares characters literally: %, _ and \ have no special meaning, unlike LIKE.
  return { sql: `instr(${expr}, ?) > 0`, params: [needle] };
}

/** Where the 2-digit month and day of a canonical date / date-time string start (1-based). */
const PART_START: Readonly<Record<IndexPart, number>> = { month: 6, day: 9 };

/**
 * The month or day of the date in column `col`: the expression a `month` / `day` condition
 * compares and a declared index on that part holds (the same text, so that SQLite's planner
 * matches them: https://sqlite.org/expridx.html).
 */
export function datePartSql(col: string, part: IndexPart): string {
  return `substr(${col}, ${PART_START[part]}, 2)`;
}

/** Compares the 2-digit month or day of a canonical date / date-time string. */
function datePart(part: IndexPart): Translate {
  return (col, value) => {
    const text = datePartText(value);
    return text === undefined ? FALSE : { sql: `${datePartSql(col, part)} = ?`, params: [text] };
  };
}

/**
 * How each condition of README "Collection queries" reads in SQL; `col` is the quoted column.
 * What absent values (NULL) match is the contract of ../store.ts (`absentMatches`).
 */
const CONDITION_SQL: Record<Condition, Translate> = {
  exact: (col, value) => {
    const v = one(value);
    return v === null ? { sql: `${col} IS NULL`, params: [] } : { sql: `${col} = ?`, params: [toSql(v)] };
  },
  iexact: (col, value) => ({ sql: `${folded(col)} = ?`, params: [lower(value)] }),
  contains: (col, value) => contains(col, String(one(value)), false),
  icontains: (col, value) => contains(col, lower(value), true),
  startswith: (col, value, column) => startsWith(col, String(one(value)), column, false),
  istartswith: (col, value, column) => startsWith(col, lower(value), column, true),
  endswith: (col, value) => endsWith(col, String(one(value)), false),
  iendswith: (col, value) => endsWith(col, lower(value), true),
  gt: compare('>'),
  gte: compare('>='),
  lt: compare('<'),
  lte: compare('<='),
  // Absent values are "not equal" too.
  ne: (col, value) => {
    const v = one(value);
    return v === null
      ? { sql: `${col} IS NOT NULL`, params: [] }
      : { sql: `(${col} IS NULL OR ${col} <> ?)`, params: [toSql(v)] };
  },
  in: (col, value) => {
    const values = Array.isArray(value) ? value : [value];
    const present = values.filter((v) => v !== null);
    const parts: string[] = [];
    if (present.length > 0) parts.push(`${col} IN (${present.map(() => '?').join(', ')})`);
    if (present.length < values.length) parts.push(`${col} IS NULL`);
    if (parts.length === 0) return FALSE;
    return { sql: parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`, params: present.map(toSql) };
  },
  range: (col, value) => {
    const [low, high] = Array.isArray(value) ? value : [value, value];
    return { sql: `${col} >= ? AND ${col} <= ?`, params: [toSql(low ?? null), toSql(high ?? null)] };
  },
  isnull: (col, value) => ({ sql: one(value) ? `${col} IS NULL` : `${col} IS NOT NULL`, params: [] }),
  // A range of the text, so the field's index serves it.
  year: (col, value) => {
    const range = yearRange(value);
    return range === undefined ? FALSE : { sql: `${col} >= ? AND ${col} < ?`, params: range };
  },
  month: datePart('month'),
  day: datePart('day'),
};

function column(shape: TableShape, field: string): Column {
  const c = shape.columns.find((c) => c.field === field);
  if (!c) throw new Error(`model of table ${shape.table} has no field ${field}`);
  return c;
}

/**
 * `parts` joined by AND as a balanced tree of parenthesised halves, not one chain: SQLite parses
 * `a AND b AND c …` into a tree as deep as the chain is long and refuses one deeper than 1,000
 * (SQLITE_MAX_EXPR_DEPTH), which a query of that many filters is (a handler's, or a URL's on a wide
 * model); halves are about log2(n) deep. The planner splits nested ANDs into the same terms.
 */
function allOf(parts: readonly string[]): string {
  if (parts.length <= 2) return parts.join(' AND ');
  const half = Math.ceil(parts.length / 2);
  return `(${allOf(parts.slice(0, half))}) AND (${allOf(parts.slice(half))})`;
}

/** The WHERE clause (with its keyword) of `filters`, or '' when there are none. All filters apply. */
export function whereSql(shape: TableShape, filters: readonly Filter[]): Sql {
  if (filters.length === 0) return { sql: '', params: [] };
  const parts: string[] = [];
  const params: SQLInputValue[] = [];
  for (const f of filters) {
    const c = column(shape, f.field);
    const part = CONDITION_SQL[f.condition](quoteIdent(c.column), f.value, c);
    parts.push(`(${part.sql})`);
    params.push(...part.params);
  }
  return { sql: ` WHERE ${allOf(parts)}`, params };
}

/**
 * The ORDER BY clause of `orderTerms(order)`. NULLs sort first when ascending and last when
 * descending, which is what the contract asks and SQLite does by itself, so no NULLS FIRST/LAST
 * is written (and the `(field, id)` indexes serve the order).
 */
export function orderSql(shape: TableShape, order: readonly Order[]): string {
  const terms = orderTerms(order).map((o) => `${quoteIdent(column(shape, o.field).column)}${o.desc ? ' DESC' : ''}`);
  return ` ORDER BY ${terms.join(', ')}`;
}

/**
 * How a column is read back: see textExpr. Date columns too: a date written as such is canonical,
 * but text kept from before the field became a date is read as it is, NULs included.
 */
export function selectExpr(c: Column): string {
  const col = quoteIdent(c.column);
  return TEXT_TYPES.has(c.type) ? textExpr(col) : col;
}

/** The columns of a member, in the shape's order. */
export function columnsSql(shape: TableShape): string {
  return shape.columns.map(selectExpr).join(', ');
}

/**
 * Rows between two calls of the deadline function in a scan: every row would cost about 0.15 µs
 * each (a call into JS), a third of a plain scan of small rows; one in 16 costs next to nothing,
 * and the longest stretch unchecked is 15 rows (case-insensitive conditions check every row).
 */
export const CHECK_EVERY = 16;

/** The WHERE term that has a scan call DEADLINE_FUNCTION (deadline.ts) on every CHECK_EVERY-th id; first, so SQLite evaluates it before the other terms. */
const CHECK_SQL = `(("id" & ${CHECK_EVERY - 1}) <> 0 OR svc_deadline())`;

/** `where` (from whereSql) with the deadline check added. */
function checked(where: Sql): Sql {
  return { sql: where.sql === '' ? ` WHERE ${CHECK_SQL}` : ` WHERE ${CHECK_SQL} AND${where.sql.slice(' WHERE'.length)}`, params: where.params };
}

/** Conditions that read a field's index (README "Collection queries"); every other one tests each member the rest leave. */
const INDEXED_CONDITIONS: ReadonlySet<Condition> = new Set(['exact', 'in', 'gt', 'gte', 'lt', 'lte', 'range', 'isnull', 'year', 'startswith']);

/** How `Indexes.leading` names a part of a field: `born__day`. */
export function partKey(field: string, part: IndexPart): string {
  return `${field}__${part}`;
}

/** What a model's indexes serve, for `scans`. */
export interface Indexes {
  /** Fields declared `"index": false`. */
  readonly unindexed: ReadonlySet<string>;
  /** The first keys of the model's declared indexes: `field`, or `field__month` / `field__day`. */
  readonly leading: ReadonlySet<string>;
}

/**
 * Whether a query may have SQLite test every member: a condition no index serves (a month or day
 * one unless a declared index starts with that part),
 * a filter on a field without an index of its own or a declared one that starts with it, an order
 * by an unindexed field. Such a query runs off the event loop (readers.ts).
 */
export function scans(query: Pick<Query, 'filters'> & Partial<Pick<Query, 'order'>>, { unindexed, leading }: Indexes): boolean {
  for (const f of query.filters) {
    const served =
      f.condition === 'month' || f.condition === 'day'
        ? leading.has(partKey(f.field, f.condition))
        : INDEXED_CONDITIONS.has(f.condition) && (!unindexed.has(f.field) || leading.has(f.field));
    if (!served) return true;
  }
  return (query.order ?? []).some((o) => unindexed.has(o.field));
}

/**
 * Whether a filter confines the walk of `query`'s order to part of its first term's index (an
 * indexed condition on that field): the matches past a page then lie in the part a count reads
 * too, so reading on past the page to count them costs at most what the count would. Without
 * one the walk runs the whole index, row by row, however few members match.
 */
export function orderWalkIsBounded(query: Pick<Query, 'filters' | 'order'>, unindexed: ReadonlySet<string>): boolean {
  const first = orderTerms(query.order)[0]!.field;
  return !unindexed.has(first) && query.filters.some((f) => f.field === first && INDEXED_CONDITIONS.has(f.condition));
}

/** SELECT of the members matching `query`, in its order, sliced by `start` / `count`: `columns`, by default every column of a member. */
export function selectSql(shape: TableShape, query: Query, columns = columnsSql(shape)): Sql {
  const where = checked(whereSql(shape, query.filters));
  const params = [...where.params];
  let sql = `SELECT ${columns} FROM ${quoteIdent(shape.table)}${where.sql}${orderSql(shape, query.order)}`;
  const page = pageOf(query);
  if (page.limit !== undefined || page.skip > 0) {
    // LIMIT -1 is "no limit" in SQLite (and LIMIT 0 no rows); OFFSET needs a LIMIT. The limit is
    // written into the SQL, not bound: SQLite (3.50 in node:sqlite) lets its planner read a bound
    // LIMIT's value and so prepares the statement again each time that variable is bound
    // (sqlite3ExprIsInteger marks it in the statement's `expmask`): every page paid a prepare, in
    // the server 30-40 µs of a first page's 170. Page sizes are few: the statement cache holds them.
    const limit = page.limit ?? -1;
    if (!Number.isSafeInteger(limit)) throw new Error(`a page's count must be an integer, not ${limit}`);
    sql += ` LIMIT ${limit} OFFSET ?`;
    params.push(page.skip);
  }
  return { sql, params };
}

/** SELECT count(*) of the members matching `filters` (only used when there are filters). */
export function countSql(shape: TableShape, filters: readonly Filter[]): Sql {
  const where = checked(whereSql(shape, filters));
  return { sql: `SELECT count(*) FROM ${quoteIdent(shape.table)}${where.sql}`, params: where.params };
}
