// The embedded store (README "Storage"): one SQLite database per app through Node's built-in node:sqlite.

import type { DatabaseSync, SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { Filter, Member, MemberData, Model, Query } from '../../model/types.ts';
import { DEFAULT_STORE_TIME_MS, modelSignature, storeTimeLimit, type ReadOptions, type Store, type WriteResult } from '../store.ts';
import { openDatabase, sqlitePath } from './database.ts';
import { Allowance, Deadline, isTimeUp } from './deadline.ts';
import { readers } from './readers.ts';
import { GroupCommit } from './group-commit.ts';
import { memberText, toMember, values, written } from './rows.ts';
import { BOOKKEEPING_SQL, IF_UPDATED, migrate, SHAPE_COLUMN, TEXT_COLUMN, type Collection } from './schema.ts';
import { countSql, quoteIdent, scans, selectSql, type Sql } from './sql.ts';
import { Statements } from './statements.ts';

/**
 * Pages of at most this many members are read with one `all()` instead of streamed. Such a page is
 * held whole before its first member is seen, so its size is kept small: the callers' byte bounds
 * (maxResultBytes) can only stop a read between members (members of 1 MB).
 */
const SMALL_PAGE = 32;

/** What `listJson` reads of a member row: `id`, `updated`, the fields' JSON text and its shape. */
const TEXT_COLUMNS = ['id', 'updated', TEXT_COLUMN, SHAPE_COLUMN].map(quoteIdent).join(', ');

export async function openSqliteStore(uri: string, name: string): Promise<Store> {
  const path = sqlitePath(uri, name);
  const deadline = new Deadline();
  return new SqliteStore(openDatabase(path, deadline), deadline, path === ':memory:' ? undefined : path);
}

/** The fields of a model declared `"index": false`. */
const unindexedFields = new WeakMap<Model, ReadonlySet<string>>();
function unindexed(model: Model): ReadonlySet<string> {
  let names = unindexedFields.get(model);
  if (!names) unindexedFields.set(model, (names = new Set(model.declared.filter((f) => f.index === false).map((f) => f.name))));
  return names;
}

class SqliteStore implements Store {
  readonly #db: DatabaseSync;
  readonly #deadline: Deadline;
  /**
   * The database file, which reader threads open too; undefined for `sqlite::memory:`, whose
   * database no other connection can see: there every query runs on the event loop, bounded by
   * its store time only.
   */
  readonly #path: string | undefined;
  readonly #statements: Statements;
  readonly #writes: GroupCommit;
  /** By model name. */
  readonly #collections = new Map<string, Collection>();
  /** By Model object: a request's model is the same object as the previous request's while its file is unchanged. */
  #byModel = new WeakMap<Model, Collection>();
  #closed = false;

  constructor(db: DatabaseSync, deadline: Deadline, path: string | undefined) {
    this.#db = db;
    this.#deadline = deadline;
    this.#path = path;
    this.#statements = new Statements(db);
    this.#writes = new GroupCommit(db);
    this.#writes.transaction(() => db.exec(BOOKKEEPING_SQL));
  }

  async ensure(model: Model): Promise<void> {
    this.#collection(model);
  }

  async *list(model: Model, query: Query, options: ReadOptions = {}): AsyncIterable<Member> {
    const c = this.#collection(model);
    for await (const row of this.#select(selectSql(c.shape, query), query, scans(query, unindexed(model)), options)) yield toMember(c.shape.columns, row);
  }

  async *listJson(model: Model, query: Query, options: ReadOptions = {}): AsyncIterable<string> {
    const c = this.#collection(model);
    for await (const [id, updated, text, shape] of this.#select(selectSql(c.shape, query, TEXT_COLUMNS), query, scans(query, unindexed(model)), options)) {
      if (shape === c.shapeId && typeof text === 'string') {
        yield memberText(id as number, updated as string, text);
      } else {
        // Written under other fields (or before texts were kept): built from its columns; gone
        // when a write deleted it since the page was read.
        const row = this.#statements.row(c.select, [id as number]);
        if (row) yield JSON.stringify(toMember(c.shape.columns, row));
      }
    }
  }

  /**
   * The rows of a SELECT of `query`, after committing the open writes (so a reader thread, which
   * starts its read afterwards, sees them too). A query that `scan`s runs in a reader thread when
   * the database is a file; every query is bounded by its store time.
   */
  async *#select({ sql, params }: Sql, query: Query, scan: boolean, options: ReadOptions): AsyncGenerator<SQLOutputValue[]> {
    this.#writes.commit();
    const allowance = new Allowance(options.timeMs ?? DEFAULT_STORE_TIME_MS);
    if (scan && this.#path !== undefined) {
      yield* readers.rows(this.#path, sql, params, allowance.timeMs);
      return;
    }
    if (query.count !== undefined && query.count <= SMALL_PAGE) {
      // A small page is read in one call: cheaper than stepping row by row.
      yield* this.#timed(allowance, () => this.#statements.rows(sql, params));
      return;
    }
    const stmt = this.#statements.checkout(sql);
    const rows = stmt.iterate(...params) as Iterator<SQLOutputValue[]>;
    try {
      for (let r = this.#timed(allowance, () => rows.next()); !r.done; r = this.#timed(allowance, () => rows.next())) yield r.value;
    } finally {
      // Also when the consumer stops early: resets the statement, ending its read transaction.
      if (!this.#closed) {
        rows.return?.();
        this.#statements.checkin(sql, stmt);
      }
    }
  }

  async count(model: Model, filters: readonly Filter[], options: ReadOptions = {}): Promise<number> {
    const c = this.#collection(model);
    this.#writes.commit();
    if (filters.length === 0) {
      return this.#statements.row('SELECT count FROM svc_collections WHERE id = ?', [c.key])![0] as number;
    }
    const { sql, params } = countSql(c.shape, filters);
    const allowance = new Allowance(options.timeMs ?? DEFAULT_STORE_TIME_MS);
    if (scans({ filters }, unindexed(model)) && this.#path !== undefined) {
      for await (const row of readers.rows(this.#path, sql, params, allowance.timeMs)) return row[0] as number;
      throw new Error('a count returned no row');
    }
    return this.#timed(allowance, () => this.#statements.row(sql, params)![0] as number);
  }

  /** `step` with the store time `allowance` has left, its overrun turned into `store-time-limit`. */
  #timed<T>(allowance: Allowance, step: () => T): T {
    try {
      return allowance.step(this.#deadline, step);
    } catch (e) {
      if (isTimeUp(e)) throw storeTimeLimit(allowance.timeMs);
      throw e;
    }
  }

  async get(model: Model, id: number): Promise<Member | null> {
    const c = this.#collection(model);
    this.#writes.commit();
    const row = this.#statements.row(c.select, [id]);
    return row ? toMember(c.shape.columns, row) : null;
  }

  async insert(model: Model, data: MemberData, updated: string): Promise<Member> {
    const c = this.#collection(model);
    return this.#writes.write(() => {
      // One statement: the row and its count (by trigger) are written together.
      const { lastInsertRowid } = this.#statements.get(c.insert).run(updated, ...values(c.shape.columns, data, c.shapeId));
      return written(c.shape.columns, Number(lastInsertRowid), updated, data);
    });
  }

  async replace(model: Model, id: number, data: MemberData, updated: string, ifUpdated?: string): Promise<WriteResult<Member>> {
    const c = this.#collection(model);
    return this.#writes.write((): WriteResult<Member> => {
      const params = [updated, ...values(c.shape.columns, data, c.shapeId), id];
      if (ifUpdated !== undefined) params.push(ifUpdated);
      const sql = ifUpdated === undefined ? c.replace : c.replace + IF_UPDATED;
      if (Number(this.#statements.get(sql).run(...params).changes) === 1) {
        return { ok: true, value: written(c.shape.columns, id, updated, data) };
      }
      return { ok: false, reason: this.#missReason(c, id, ifUpdated) };
    });
  }

  async delete(model: Model, id: number, ifUpdated?: string): Promise<WriteResult<void>> {
    const c = this.#collection(model);
    return this.#writes.write((): WriteResult<void> => {
      const sql = ifUpdated === undefined ? c.delete : c.delete + IF_UPDATED;
      const params: SQLInputValue[] = ifUpdated === undefined ? [id] : [id, ifUpdated];
      if (Number(this.#statements.get(sql).run(...params).changes) === 1) return { ok: true, value: undefined };
      return { ok: false, reason: this.#missReason(c, id, ifUpdated) };
    });
  }

  async ping(): Promise<void> {
    if (this.#closed) throw new Error('the store is closed');
    this.#statements.row('SELECT 1', []);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#writes.close();
    this.#closed = true;
    if (this.#path !== undefined) readers.close(this.#path);
    this.#statements.close();
    this.#collections.clear();
    this.#byModel = new WeakMap();
    this.#db.close();
  }

  /** Why a conditional write changed nothing: the member is gone, or it changed. */
  #missReason(c: Collection, id: number, ifUpdated: string | undefined): 'not-found' | 'conflict' {
    if (ifUpdated === undefined) return 'not-found';
    return this.#statements.row(c.exists, [id]) ? 'conflict' : 'not-found';
  }

  /** The collection of `model`, its table created or migrated when its fields changed. */
  #collection(model: Model): Collection {
    const known = this.#byModel.get(model);
    if (known) return known;
    if (this.#closed) throw new Error('the store is closed');
    let c = this.#collections.get(model.name);
    if (c?.signature !== modelSignature(model)) {
      c = this.#writes.transaction(() => migrate(this.#db, this.#statements, model));
      this.#collections.set(model.name, c);
    }
    this.#byModel.set(model, c);
    return c;
  }
}
