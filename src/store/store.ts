// The store interface and the query contract every store keeps (test/store/conformance.ts holds them to it).

import { SvcError } from '../errors.ts';
import { statFresh } from '../model/file-stat.ts';
import type { Filter, Member, MemberData, Model, Order, Query, Value } from '../model/types.ts';

/** Options of a read. */
export interface ReadOptions {
  /**
   * Store time this read may use, in milliseconds: time the engine works on it, not time spent
   * waiting for the caller to take the next member. Default DEFAULT_STORE_TIME_MS; past it the
   * read throws `storeTimeLimit` (the engine stops the query: SQLite through a check it makes
   * while scanning, MongoDB through `maxTimeMS`).
   */
  readonly timeMs?: number;
}

/** Store time one read may use by default, in milliseconds (Limits.storeLimitMs). */
export const DEFAULT_STORE_TIME_MS = 5_000;

/** Result of a conditional write. */
export type WriteResult<T> = { ok: true; value: T } | { ok: false; reason: 'not-found' | 'conflict' };

/**
 * The data of one app (tenant). Queries run inside the engine: filtering, ordering, slicing and
 * counting never load a whole collection into the process. Every operation prepares the model's
 * storage first when it has not been prepared yet, so callers never need `ensure`.
 *
 * Query semantics (the contract; both stores give identical results for the same data):
 *
 * - **Absent values.** A member without a value for a field is *absent* there (never stored as
 *   null). An absent value satisfies exactly the filters `absentMatches` says it does: `isnull`
 *   true, `ne` with a value (absent is "not equal"), `exact`/`in` that name `null`. It never
 *   satisfies a comparison (`gt`, `lt`, `range`, …), a text condition or a date part.
 * - **Order of absent values.** Absent sorts before every present value: first when ascending,
 *   last when descending (SQLite's NULL and MongoDB's missing both behave so natively).
 * - **Ties.** `orderTerms`: the requested terms up to the first `id`, then `id` ascending, so
 *   every order is total and a page boundary never splits or repeats members.
 * - **Text.** Strings compare by Unicode code point; text conditions match characters literally
 *   (no wildcards); the case-insensitive ones lower-case both sides (`String.toLowerCase`).
 * - **Dates.** Date and date-time values are canonical strings (README "Models"), so they order
 *   as text; `year` is a range of that text, `month`/`day` its 2-digit parts.
 * - **Limits.** `pageOf`: `start` members are skipped, then at most `count`; `count` 0 is an empty
 *   page (MongoDB's `limit(0)` would mean "no limit"). An `in` lists at most MAX_IN_VALUES
 *   values (src/model/query.ts).
 */
export interface Store {
  /** Prepares the storage of a model (table or collection, and indexes) now rather than on first use; idempotent. */
  ensure(model: Model): Promise<void>;
  /** Members matching `query`, in its order, streamed. */
  list(model: Model, query: Query, options?: ReadOptions): AsyncIterable<Member>;
  /**
   * The same members as `list`, each as the JSON text `JSON.stringify` gives for it. A store may
   * keep that text with each member, written once per write, so that a page builds no objects;
   * `jsonTexts` is the form for a store that does not.
   */
  listJson(model: Model, query: Query, options?: ReadOptions): AsyncIterable<string>;
  /**
   * A page of `listJson` of at most PAGE_WITH_TOTAL members with the number of members matching
   * the query's filters, when the store can read both together (the SQLite store, for some
   * queries: in one pass over the matches, or in one read); undefined when it cannot, and the
   * caller reads the page, then counts.
   */
  pageJson?(model: Model, query: Query, options?: ReadOptions): Promise<{ texts: string[]; total: number } | undefined>;
  /** pageJson's page as the members `list` gives (for a representation that renders members), read the same way. */
  page?(model: Model, query: Query, options?: ReadOptions): Promise<{ members: Member[]; total: number } | undefined>;
  /** How many members match the filters; with no filters it reads a count the store keeps. */
  count(model: Model, filters: readonly Filter[], options?: ReadOptions): Promise<number>;
  get(model: Model, id: number): Promise<Member | null>;
  /**
   * Member `id` as `listJson` gives it (its JSON text) and its `updated`, for a store that keeps
   * that text with each member: a retrieve then builds no object.
   */
  getJson?(model: Model, id: number): Promise<{ updated: string; text: string } | null>;
  /** Assigns the next id (1, 2, …, never reused) and stores `updated` as given. */
  insert(model: Model, data: MemberData, updated: string): Promise<Member>;
  /**
   * Replaces every declared field of member `id` with `data` (absent fields become absent) and
   * sets `updated`. With `ifUpdated`, writes only while the stored `updated` still equals it.
   */
  replace(model: Model, id: number, data: MemberData, updated: string, ifUpdated?: string): Promise<WriteResult<Member>>;
  /** Deletes member `id`; with `ifUpdated`, only while the stored `updated` still equals it. */
  delete(model: Model, id: number, ifUpdated?: string): Promise<WriteResult<void>>;
  /** Resolves when the store can serve (`/readyz`); rejects, quickly (store-unavailable), when it cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The largest page `Store.pageJson` is asked for. */
export const PAGE_WITH_TOTAL = 32;

/** Members as their JSON text: `Store.listJson` of a store that keeps no text of its own. */
export async function* jsonTexts(members: AsyncIterable<Member>): AsyncIterable<string> {
  for await (const m of members) yield JSON.stringify(m);
}

/** Model objects are immutable (a changed file makes a new one), so a signature is computed once. */
const signatures = new WeakMap<Model, string>();
const shapes = new WeakMap<Model, string>();

/** The declared fields' names, types and indexes: a store prepares a model again when this changes. */
export function modelSignature(model: Model): string {
  let sig = signatures.get(model);
  if (sig === undefined) {
    sig = model.declared.map((f) => `${f.name}:${f.type}${f.index === false ? ':unindexed' : ''}`).join(',');
    if (model.indexes.length > 0) sig += `;indexes:${model.indexes.map((i) => i.name).join(';')}`;
    signatures.set(model, sig);
  }
  return sig;
}

/** The declared fields' names and types, in order: what a member's JSON text depends on. */
export function fieldsSignature(model: Model): string {
  let sig = shapes.get(model);
  if (sig === undefined) {
    sig = model.declared.map((f) => `${f.name}:${f.type}`).join(',');
    shapes.set(model, sig);
  }
  return sig;
}

/** Whether a member without a value for `filter.field` satisfies `filter` (see Store). */
export function absentMatches(filter: Filter): boolean {
  const { condition, value } = filter;
  switch (condition) {
    case 'isnull':
      return value === true;
    case 'exact':
      return value === null;
    case 'ne':
      return value !== null;
    case 'in':
      return Array.isArray(value) ? value.includes(null) : value === null;
    default:
      return false;
  }
}

/** The terms a query orders by: `order` up to its first `id` (unique: nothing left to break), then `id` ascending. */
export function orderTerms(order: readonly Order[]): Order[] {
  const terms: Order[] = [];
  for (const o of order) {
    terms.push(o);
    if (o.field === 'id') return terms;
  }
  terms.push({ field: 'id', desc: false });
  return terms;
}

/** The slice of a query: members skipped, and at most how many follow (undefined: to the end); `none` for `count` 0. */
export function pageOf(query: Pick<Query, 'start' | 'count'>): { skip: number; limit: number | undefined; none: boolean } {
  return { skip: query.start, limit: query.count, none: query.count === 0 };
}

/** A filter's single value (the first of a list). */
export function oneValue(value: Value | Value[]): Value {
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/**
 * The 2-digit text of a month or day filter value, or undefined when no canonical date can
 * have it (then the filter matches nothing). Year: see `yearRange`.
 */
export function datePartText(value: Value | Value[]): string | undefined {
  const n = oneValue(value);
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 99) return undefined;
  return String(n).padStart(2, '0');
}

/** The text range [low, high) of canonical dates in year `value`, or undefined when none can be. */
export function yearRange(value: Value | Value[]): [string, string] | undefined {
  const y = oneValue(value);
  if (typeof y !== 'number' || !Number.isInteger(y) || y < 0 || y > 9999) return undefined;
  const yyyy = String(y).padStart(4, '0');
  // Canonical dates start with a 4-digit year and a `-`; `.` follows `-` in code point order.
  return [`${yyyy}-`, `${yyyy}.`];
}

/**
 * The `updated` stamp of a write: now, but always later than the previous one of the member,
 * so that every update changes the ETag even within one millisecond. Also the stamp of a member
 * that a field's type change rewrote to another value (a store's migration): it is another
 * member then, and no entity tag may name both.
 */
export function nextUpdated(previous?: string): string {
  const now = Date.now();
  const prev = previous ? Date.parse(previous) : Number.NEGATIVE_INFINITY;
  return new Date(now > prev ? now : prev + 1).toISOString();
}

/** Seconds a client is asked to wait (`Retry-After`) when the store cannot be reached. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * The 503 of a request whose model is no longer its file (the file changed since the request
 * read it) where the store would have to change the collection for it: a store follows the file as
 * it is now, and never migrates a collection back to a model of before (sqlite-store.ts #migrate).
 */
export function modelChanged(name: string): SvcError {
  return new SvcError('model-changed', `The model file of "${name}" changed while this request was in progress: send it again.`, { headers: { 'retry-after': '1' } });
}

/** Whether `model`'s file changed since it was read (at this instant, not as of this turn); never for a model not read from a file. */
export function modelFileChanged(model: Model): boolean {
  return model.fileKey !== undefined && statFresh(model.file)?.key !== model.fileKey;
}

/** Throws model-changed when `model`'s file changed since it was read: before a step that would change the store for it (a migration, a preparation). */
export function assertModelCurrent(model: Model): void {
  if (modelFileChanged(model)) throw modelChanged(model.name);
}

/**
 * The 507 of a write the store has no room for (SQLite's file system is full): nothing of it is
 * stored, and sending it again helps only once there is room. `cause` is kept for the server's log.
 */
export function storeFull(cause?: unknown): SvcError {
  const err = new SvcError('store-full', 'The data store has no room left for this write (its disk is full); nothing of it was stored.');
  if (cause !== undefined) Object.defineProperty(err, 'cause', { value: cause, enumerable: false });
  return err;
}

/**
 * The 503 of a store that cannot be reached or is too busy to answer in time. The message names
 * no host, path or driver detail; `cause` keeps the original error for the server's log.
 */
export function storeUnavailable(cause?: unknown): SvcError {
  const err = new SvcError('store-unavailable', `The data store cannot be reached right now; retry in ${RETRY_AFTER_SECONDS} s.`, {
    headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
  });
  if (cause !== undefined) Object.defineProperty(err, 'cause', { value: cause, enumerable: false });
  return err;
}

/**
 * The 503 of a read that ran over its store time (ReadOptions.timeMs). No Retry-After: the same
 * query would run over again; a narrower one (an indexed condition, a page) does not.
 */
export function storeTimeLimit(timeMs: number): SvcError {
  return new SvcError(
    'store-time-limit',
    `The query ran over the ${Math.round(timeMs)} ms of store time one query may use: narrow it with a condition that reads an index (exact, in, startswith, a range), or page it with count.`,
  );
}
