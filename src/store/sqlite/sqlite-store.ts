// The embedded store (README "Storage"): one SQLite database per app through Node's built-in node:sqlite.

import type { DatabaseSync, SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { Filter, Member, MemberData, Model, Query } from '../../model/types.ts';
import { assertModelCurrent, DEFAULT_STORE_TIME_MS, modelChanged, modelFileChanged, modelSignature, PAGE_WITH_TOTAL, storeTimeLimit, type ReadOptions, type Store, type WriteResult } from '../store.ts';
import { openDatabase, openReader, retryWhileBusy, sharePageCache, sqlitePath } from './database.ts';
import { Allowance, Deadline, isTimeUp } from './deadline.ts';
import { readers } from './readers.ts';
import { GroupCommit, lockedTransaction, transaction, type Writes } from './group-commit.ts';
import { memberText, toMember, values, written } from './rows.ts';
import { migrateInThread } from './migrator.ts';
import { BOOKKEEPING_SQL, bookkeepingIsCurrent, collectionAsIs, IF_UPDATED, migrate, SHAPE_COLUMN, stillFits, TEXT_COLUMN, upgradeBookkeeping, type Collection } from './schema.ts';
import { countSql, orderWalkIsBounded, quoteIdent, scans, selectSql, type Sql } from './sql.ts';
import { Statements } from './statements.ts';
import { ThreadWrites } from './writer.ts';

/**
 * Pages of at most this many members are read with one `all()` instead of streamed. Such a page is
 * held whole before its first member is seen, so its size is kept small: the callers' byte bounds
 * (maxResultBytes) can only stop a read between members (members of 1 MB).
 */
const SMALL_PAGE = 32;

/**
 * How many pages of ids `pageJson` reads, its own and the next: when the matches run out within
 * them, no count query runs. Past them, the ids read past the page were the extra cost, at most a
 * page's worth of the walk.
 */
const READ_AHEAD_PAGES = 2;

/**
 * The event loop's slice of a query that may scan (a count, a small page), in milliseconds: one
 * that finishes within it costs no hop to a reader thread (~130 µs), and one that does not has
 * held the event loop this long at most before it moves there.
 */
const SLICE_MS = 2;

/** SQLite's result code of an error in SQL, such as a column that is not there (https://sqlite.org/rescode.html#error). */
const SQLITE_ERROR = 1;

/** A collection's member count (kept by triggers). */
const COLLECTION_COUNT = 'SELECT count FROM svc_collections WHERE id = ?';

/** What `listJson` reads of a member row: `id`, `updated`, the fields' JSON text and its shape. */
const TEXT_COLUMNS = ['id', 'updated', TEXT_COLUMN, SHAPE_COLUMN].map(quoteIdent).join(', ');

/** A text over this many bytes is not read by a walk that may read past its page (`pageJson`), but by id for the page. */
const AHEAD_TEXT_BYTES = 16384;

/**
 * TEXT_COLUMNS with the text of a member over AHEAD_TEXT_BYTES left NULL: octet_length of a
 * column reads its size, not its content (SQLite's OPFLAG_BYTELENARG).
 */
const SMALL_TEXT_COLUMNS = ['id', 'updated', `CASE WHEN octet_length(${quoteIdent(TEXT_COLUMN)}) <= ${AHEAD_TEXT_BYTES} THEN ${quoteIdent(TEXT_COLUMN)} END`, quoteIdent(SHAPE_COLUMN)].join(', ');

/** The store of app `name` at `uri`; its database pages kept in memory within its share of `pageCacheMiB` (sharePageCache). */
export async function openSqliteStore(uri: string, name: string, pageCacheMiB?: number): Promise<Store> {
  const path = sqlitePath(uri, name);
  const deadline = new Deadline();
  const db = await retryWhileBusy(() => openDatabase(path, deadline));
  try {
    await prepareBookkeeping(db, path === ':memory:');
    return new SqliteStore(db, deadline, path === ':memory:' ? undefined : path, pageCacheMiB);
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * Makes the bookkeeping tables, or brings an older svc's up to date: in a write transaction only
 * when they need it (a read tells), its lock taken without blocking the event loop. An app's store
 * is opened at start, and in tenant mode on a tenant's first request and again after each idle
 * release: in SQLite's busy handler, while another process held the file's write lock, the whole
 * process slept (every app's requests) for up to BUSY_TIMEOUT_MS.
 */
async function prepareBookkeeping(db: DatabaseSync, memory: boolean): Promise<void> {
  const statements = new Statements(db);
  try {
    if (bookkeepingIsCurrent(statements)) return;
    const make = () => {
      db.exec(BOOKKEEPING_SQL);
      upgradeBookkeeping(db, statements);
    };
    if (memory) transaction(db, make);
    else await lockedTransaction(db, make);
  } finally {
    statements.close();
  }
}

/** Idle connections kept for streamed lists; more streams at once open more, closed when done. */
const IDLE_STREAM_READERS = 4;

/** A read-only connection and its prepared statements. */
interface Reader {
  readonly db: DatabaseSync;
  readonly statements: Statements;
}

function closeReader(reader: Reader): void {
  reader.statements.close();
  reader.db.close();
}

/**
 * The stored fields' text of a row of TEXT_COLUMNS when it holds the member as the collection's
 * fields are now; undefined when the row was written under other fields (or before texts were
 * kept), and the member must be built from its columns, read again by id.
 */
function currentText(c: Collection, row: readonly SQLOutputValue[]): string | undefined {
  const [, , text, shape] = row;
  return shape === c.shapeId && typeof text === 'string' ? text : undefined;
}

/** `rows` of TEXT_COLUMNS made items of a page by `item`; a member a write deleted since (undefined) is left out. */
function items<T>(c: Collection, rows: readonly SQLOutputValue[][], item: (c: Collection, row: SQLOutputValue[]) => T | undefined): T[] {
  const out: T[] = [];
  for (const row of rows) {
    const it = item(c, row);
    if (it !== undefined) out.push(it);
  }
  return out;
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
  /** Gives this store's share of the page cache budget back (undefined in memory). */
  readonly #leavePageCache: (() => void) | undefined;
  /**
   * A file's writes run in the writer thread (the event loop never waits for a commit); those of
   * `sqlite::memory:`, whose database no other connection sees, run on the event loop.
   */
  readonly #writes: Writes;
  /** #writes of a file (the writer thread's), undefined for `sqlite::memory:`. */
  readonly #threadWrites: ThreadWrites | undefined;
  /** Idle connections of streamed lists (files only, see #stream). */
  readonly #streamReaders: Reader[] = [];
  /** By model name. */
  readonly #collections = new Map<string, Collection>();
  /** By Model object: a request's model is the same object as the previous request's while its file is unchanged. */
  #byModel = new WeakMap<Model, Collection>();
  /** By model name: the migration of its table under way (#collection). */
  readonly #migrating = new Map<string, Promise<Collection>>();
  #closed = false;

  constructor(db: DatabaseSync, deadline: Deadline, path: string | undefined, pageCacheMiB: number | undefined) {
    this.#db = db;
    this.#deadline = deadline;
    this.#path = path;
    this.#statements = new Statements(db);
    this.#threadWrites = path === undefined ? undefined : new ThreadWrites(path);
    this.#writes = this.#threadWrites ?? new GroupCommit(db, this.#statements);
    if (path !== undefined) readers.open(path);
    // A database in memory is all pages in memory: no share of the budget.
    this.#leavePageCache = path === undefined ? undefined : sharePageCache(db, pageCacheMiB);
  }

  async ensure(model: Model): Promise<void> {
    await this.#collection(model);
  }

  async *list(model: Model, query: Query, options: ReadOptions = {}): AsyncIterable<Member> {
    const c = this.#byModel.get(model) ?? (await this.#collection(model));
    try {
      // The stored JSON text of each member, as listJson reads it: parsing it costs less than reading every column.
      const rows = this.#select(selectSql(c.shape, query, TEXT_COLUMNS), query, scans(query, c.indexes), options);
      // Rows read on the event loop are iterated synchronously: an await per row would cost more than the row.
      if (Symbol.asyncIterator in rows) {
        for await (const row of rows) {
          const member = this.#member(c, row);
          if (member) yield member;
        }
      } else {
        for (const row of rows) {
          const member = this.#member(c, row);
          if (member) yield member;
        }
      }
    } catch (e) {
      throw this.#failure(model, c, e);
    }
  }

  async *listJson(model: Model, query: Query, options: ReadOptions = {}): AsyncIterable<string> {
    const c = this.#byModel.get(model) ?? (await this.#collection(model));
    try {
      const rows = this.#select(selectSql(c.shape, query, TEXT_COLUMNS), query, scans(query, c.indexes), options);
      if (Symbol.asyncIterator in rows) {
        for await (const row of rows) {
          const text = this.#memberText(c, row);
          if (text !== '') yield text;
        }
      } else {
        for (const row of rows) {
          const text = this.#memberText(c, row);
          if (text !== '') yield text;
        }
      }
    } catch (e) {
      throw this.#failure(model, c, e);
    }
  }

  /**
   * `e`, or model-changed when it is an error in the SQL of a collection the table no longer is:
   * `c`, the collection of the request's `model`, made before a migration this process ran since
   * (or is running: the migration thread may have committed it before the event loop hears so; or
   * another process ran, and then the model's file changed), names a column that migration moved
   * (README "Models").
   */
  #failure(model: Model, c: Collection, e: unknown): unknown {
    if ((e as { errcode?: unknown } | null)?.errcode !== SQLITE_ERROR) return e;
    const changed = this.#collections.get(model.name) !== c || this.#migrating.has(model.name) || modelFileChanged(model);
    return changed ? modelChanged(model.name) : e;
  }

  /**
   * `c`, the collection of the request's `model`, for a write of its declared fields, once no
   * migration of the table is under way: a write issued during one goes after it. When the table
   * has been migrated since `c` was made, and keeps one of `c`'s fields in another column or as
   * another type, the write is refused (model-changed): through `c` it would fail (the column is
   * gone) or store a value of the old type that the migration would have converted (a 7 in a field
   * made boolean, which reads true but is not found by `=true`). A change that added or removed
   * fields leaves `c`'s columns as they were: the write goes through it, as if made before.
   */
  async #writable(model: Model, c: Collection): Promise<Collection> {
    for (let pending = this.#migrating.get(model.name); pending; pending = this.#migrating.get(model.name)) await pending.catch(() => {});
    if (this.#collections.get(model.name) !== c && !stillFits(this.#statements, c)) throw modelChanged(model.name);
    return c;
  }

  /**
   * A member from a row of TEXT_COLUMNS: its stored text parsed (the same member as toMember
   * builds, see memberText), or, when it was written under other fields (or before texts were
   * kept), read from its columns; undefined when a write deleted it since the page was read.
   */
  #member(c: Collection, row: SQLOutputValue[]): Member | undefined {
    const [id, updated] = row;
    const text = currentText(c, row);
    if (text !== undefined) return { id: id as number, updated: updated as string, ...(JSON.parse(text) as MemberData) };
    // Read from its columns as the table is now: a list streaming on a snapshot of its own may
    // have begun before a type change moved a column (the select it began with names the dropped one).
    const now = this.#now(c);
    if (now !== c) {
      const current = this.#statements.row(now.selectText, [id as number]);
      return current ? this.#member(now, current) : undefined;
    }
    const columns = this.#statements.row(c.select, [id as number]);
    return columns ? toMember(c.shape.columns, columns) : undefined;
  }

  /** The collection `c` is now (the same, unless a model change migrated its table since). */
  #now(c: Collection): Collection {
    for (const now of this.#collections.values()) if (now.key === c.key) return now;
    return c;
  }

  /**
   * A member's JSON from a row of TEXT_COLUMNS: its stored text, or, when it was written under
   * other fields (or before texts were kept), built from its columns; '' when a write deleted it
   * since the page was read.
   */
  #memberText(c: Collection, row: SQLOutputValue[]): string {
    const text = currentText(c, row);
    if (text !== undefined) return memberText(row[0] as number, row[1] as string, text);
    const member = this.#member(c, row);
    return member ? JSON.stringify(member) : '';
  }

  /**
   * The rows of a SELECT of `query`, after committing the open writes (so a reader thread, which
   * starts its read afterwards, sees them too). A query that `scan`s runs in a reader thread when
   * the database is a file; every query is bounded by its store time.
   */
  #select({ sql, params }: Sql, query: Query, scan: boolean, options: ReadOptions): Iterable<SQLOutputValue[]> | AsyncIterable<SQLOutputValue[]> {
    this.#writes.commit();
    const allowance = new Allowance(options.timeMs ?? DEFAULT_STORE_TIME_MS);
    const small = query.count !== undefined && query.count <= SMALL_PAGE;
    if (scan && this.#path !== undefined) {
      // A small page gets a slice of the event loop first (most filters that cannot use an index
      // for every condition still narrow by one that can); past the slice it moves to a reader thread.
      const rows = small ? this.#slice(allowance, () => this.#statements.rows(sql, params)) : undefined;
      return rows ?? readers.rows(this.#path, sql, params, allowance.left, allowance.timeMs);
    }
    // A small page is read in one call: cheaper than stepping row by row. So is every list of
    // `sqlite::memory:`: its one connection also runs the writes (GroupCommit on the event loop),
    // and a write between two steps of a statement changes what it still steps (a member updated
    // to a later place in the order would be read again); read whole, the rows are one snapshot.
    if (small || this.#path === undefined) return this.#timed(allowance, () => this.#statements.rows(sql, params));
    return this.#stream(sql, params, allowance);
  }

  /**
   * The rows of `sql`, stepped one at a time as the consumer takes them, each step within
   * `allowance`. A stream holds its read snapshot while the client takes its rows: on a file it
   * runs on a connection of its own, so that the main connection, whose reads each run to
   * completion, always reads from the newest commit (writes commit in the writer thread).
   */
  *#stream(sql: string, params: SQLInputValue[], allowance: Allowance): Generator<SQLOutputValue[]> {
    const reader = this.#path === undefined ? undefined : (this.#streamReaders.pop() ?? this.#openStreamReader(this.#path));
    const statements = reader?.statements ?? this.#statements;
    const stmt = statements.checkout(sql);
    const rows = stmt.iterate(...params) as Iterator<SQLOutputValue[]>;
    try {
      for (let r = this.#timed(allowance, () => rows.next()); !r.done; r = this.#timed(allowance, () => rows.next())) yield r.value;
    } finally {
      // Also when the consumer stops early: resets the statement, ending its read transaction
      // (the main connection's, only while the store is open: close() closed it).
      if (reader || !this.#closed) {
        rows.return?.();
        statements.checkin(sql, stmt);
      }
      if (reader && (this.#closed || this.#streamReaders.length >= IDLE_STREAM_READERS)) closeReader(reader);
      else if (reader) this.#streamReaders.push(reader);
    }
  }

  #openStreamReader(path: string): Reader {
    const db = openReader(path, this.#deadline);
    return { db, statements: new Statements(db) };
  }

  /**
   * A page and its total, in one read, for a page of at most PAGE_WITH_TOTAL members (else
   * undefined: the caller reads the page, then counts):
   *
   * - Unfiltered, in an order an index serves: the page and the collection's count in one read
   *   transaction (`#oneRead`).
   * - Filtered, when a filter bounds the walk of the order's index (sql.ts `orderWalkIsBounded`):
   *   from one pass over the matches, the rows of the page and of up to one page more (their texts
   *   when small; a large one is read by id, for the page only). When the matches run out within
   *   that, their number is the total (start + the rows read, as for a short page: an empty read
   *   past the first page says only that the total is at most `start`); otherwise a count query
   *   counts them. On the event loop, the reads share one read transaction.
   */
  async pageJson(model: Model, query: Query, options: ReadOptions = {}): Promise<{ texts: string[]; total: number } | undefined> {
    const page = await this.#page(model, query, options, (c, row) => this.#memberText(c, row) || undefined);
    return page && { texts: page.items, total: page.total };
  }

  /** pageJson's page as members (for Atom, and a handler's result): the same read, each row made a member instead of its text. */
  async page(model: Model, query: Query, options: ReadOptions = {}): Promise<{ members: Member[]; total: number } | undefined> {
    const page = await this.#page(model, query, options, (c, row) => this.#member(c, row));
    return page && { members: page.items, total: page.total };
  }

  /** The page and total of pageJson, each row of TEXT_COLUMNS made an item by `item` (undefined: a member a write deleted since). */
  async #page<T>(model: Model, query: Query, options: ReadOptions, item: (c: Collection, row: SQLOutputValue[]) => T | undefined): Promise<{ items: T[]; total: number } | undefined> {
    const c = this.#byModel.get(model) ?? (await this.#collection(model));
    try {
      return await this.#pageOf(c, model, query, options, item);
    } catch (e) {
      throw this.#failure(model, c, e);
    }
  }

  /** #page's read, in `c`, the collection of `model`. */
  async #pageOf<T>(c: Collection, model: Model, query: Query, options: ReadOptions, item: (c: Collection, row: SQLOutputValue[]) => T | undefined): Promise<{ items: T[]; total: number } | undefined> {
    const count = query.count;
    if (count === undefined || count === 0 || count > PAGE_WITH_TOTAL) return undefined;
    const allowance = new Allowance(options.timeMs ?? DEFAULT_STORE_TIME_MS);
    const scan = scans(query, c.indexes);
    if (query.filters.length === 0) {
      if (scan) return undefined;
      // The page and the count its collection's triggers keep, in one statement: one snapshot with
      // no transaction to begin and commit (those two were 6% of a first page's CPU). The count
      // is each row's last column.
      const page = selectSql(c.shape, query, `${TEXT_COLUMNS}, (${COLLECTION_COUNT})`);
      const params = [c.key, ...page.params];
      this.#writes.commit();
      const rows = this.#timed(allowance, () => this.#statements.rows(page.sql, params));
      if (rows.length > 0 && rows.every((row) => currentText(c, row) !== undefined)) return { items: items(c, rows, item), total: rows[0]![4] as number };
      // No row carries the count, or a member of another shape is read again by id (#member):
      // the page again, those reads and the count in one read transaction, so that a commit of the
      // writer thread in between cannot give a total the page contradicts.
      return this.#oneRead(allowance, () => {
        const again = this.#statements.rows(page.sql, params);
        return { items: items(c, again, item), total: again.length > 0 ? (again[0]![4] as number) : this.#keptCount(c) };
      });
    }
    if (!orderWalkIsBounded(query, c.indexes.unindexed)) return undefined;
    // One walk gives the page's rows and those of the next page, whose texts are read only when small.
    const ahead = count * READ_AHEAD_PAGES;
    const { sql, params } = selectSql(c.shape, { ...query, count: ahead }, SMALL_TEXT_COLUMNS);
    /** The total the rows read give, when the matches ran out within them. */
    const known = (found: SQLOutputValue[][]) => (found.length < ahead && (found.length > 0 || query.start === 0) ? query.start + found.length : undefined);
    if (!scan) {
      // All on the event loop: the rows, the count and the large texts in one read transaction.
      return this.#oneRead(allowance, () => {
        const found = this.#statements.rows(sql, params);
        const total = known(found) ?? this.#countNow(c, query.filters);
        return { items: items(c, this.#withLargeTexts(c, found.slice(0, count)), item), total };
      });
    }
    const found = await this.#all(sql, params, true, allowance);
    const total = known(found) ?? (await this.count(model, query.filters, options));
    return { items: items(c, this.#withLargeTexts(c, found.slice(0, count)), item), total };
  }

  /** The collection's member count, as its triggers keep it. */
  #keptCount(c: Collection): number {
    return this.#statements.row(COLLECTION_COUNT, [c.key])![0] as number;
  }

  /** The members matching `filters` (which an index serves: no scan), counted on the event loop. */
  #countNow(c: Collection, filters: readonly Filter[]): number {
    const { sql, params } = countSql(c.shape, filters);
    return this.#statements.row(sql, params)![0] as number;
  }

  /**
   * Runs `read` (synchronous reads on the main connection, within `allowance`) in one read
   * transaction, after committing the open writes: on WAL, each statement outside one begins and
   * ends a read of its own, which costs more than the statement (a lookup by id: 3.2 µs alone,
   * 0.7 µs inside one), and the reads see one snapshot.
   */
  #oneRead<T>(allowance: Allowance, read: () => T): T {
    this.#writes.commit();
    return this.#timed(allowance, () => this.#readTransaction(read));
  }

  /** Rows of SMALL_TEXT_COLUMNS as rows of TEXT_COLUMNS: a text left out as large is read by id (a member a write deleted since keeps its row, and is left out). */
  #withLargeTexts(c: Collection, rows: SQLOutputValue[][]): SQLOutputValue[][] {
    return rows.map((row) => (row[2] === null ? (this.#statements.row(c.selectText, [row[0] as number]) ?? row) : row));
  }

  /**
   * Every row of `sql`, read with one `all()` after committing the open writes: on the event loop,
   * or, for a query that `scan`s on a file, on it for a slice and then in a reader thread.
   */
  async #all(sql: string, params: SQLInputValue[], scan: boolean, allowance: Allowance): Promise<SQLOutputValue[][]> {
    this.#writes.commit();
    if (!scan || this.#path === undefined) return this.#timed(allowance, () => this.#statements.rows(sql, params));
    const rows = this.#slice(allowance, () => this.#statements.rows(sql, params));
    if (rows !== undefined) return rows;
    const read: SQLOutputValue[][] = [];
    for await (const row of readers.rows(this.#path, sql, params, allowance.left, allowance.timeMs)) read.push(row);
    return read;
  }

  async count(model: Model, filters: readonly Filter[], options: ReadOptions = {}): Promise<number> {
    const c = this.#byModel.get(model) ?? (await this.#collection(model));
    this.#writes.commit();
    if (filters.length === 0) return this.#keptCount(c);
    try {
      const { sql, params } = countSql(c.shape, filters);
      const [row] = await this.#all(sql, params, scans({ filters }, c.indexes), new Allowance(options.timeMs ?? DEFAULT_STORE_TIME_MS));
      if (row === undefined) throw new Error('a count returned no row');
      return row[0] as number;
    } catch (e) {
      throw this.#failure(model, c, e);
    }
  }

  /**
   * `step` on the event loop for at most SLICE_MS of the store time `allowance` has left; undefined
   * when the slice ran out first (the caller then runs the query in a reader thread, with the rest).
   */
  #slice<T>(allowance: Allowance, step: () => T): T | undefined {
    try {
      return allowance.step(this.#deadline, step, SLICE_MS);
    } catch (e) {
      if (isTimeUp(e) && allowance.left > 0) return undefined;
      if (isTimeUp(e)) throw storeTimeLimit(allowance.timeMs);
      throw e;
    }
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
    const { c, row } = await this.#textRow(model, id);
    try {
      return (row && this.#member(c, row)) ?? null;
    } catch (e) {
      throw this.#failure(model, c, e);
    }
  }

  async getJson(model: Model, id: number): Promise<{ updated: string; text: string } | null> {
    const { c, row } = await this.#textRow(model, id);
    let text: string;
    try {
      text = row ? this.#memberText(c, row) : '';
    } catch (e) {
      throw this.#failure(model, c, e);
    }
    return text === '' ? null : { updated: row![1] as string, text };
  }

  /**
   * Member `id`'s row of TEXT_COLUMNS, after committing the open writes, and its collection. Its
   * stored text, as lists read it: a column that a field's type change left with another affinity
   * may hold a value converted (text "0123" in a column made for integers is 123).
   */
  async #textRow(model: Model, id: number): Promise<{ c: Collection; row: SQLOutputValue[] | undefined }> {
    const c = this.#byModel.get(model) ?? (await this.#collection(model));
    this.#writes.commit();
    return { c, row: this.#statements.row(c.selectText, [id]) };
  }

  async insert(model: Model, data: MemberData, updated: string): Promise<Member> {
    let c = this.#byModel.get(model) ?? (await this.#collection(model));
    // Synchronously when nothing changed the table: the write is issued in the turn it was made.
    if (this.#collections.get(model.name) !== c || this.#migrating.has(model.name)) c = await this.#writable(model, c);
    // One statement: the row and its count (by trigger) are written together.
    const { lastInsertRowid } = await this.#writes.run(c.insert, [updated, ...values(c.shape.columns, data, c.shapeId)]).catch((e: unknown) => {
      throw this.#failure(model, c, e);
    });
    return written(c.shape.columns, lastInsertRowid, updated, data);
  }

  async replace(model: Model, id: number, data: MemberData, updated: string, ifUpdated?: string): Promise<WriteResult<Member>> {
    let c = this.#byModel.get(model) ?? (await this.#collection(model));
    if (this.#collections.get(model.name) !== c || this.#migrating.has(model.name)) c = await this.#writable(model, c);
    const params = [updated, ...values(c.shape.columns, data, c.shapeId), id];
    if (ifUpdated !== undefined) params.push(ifUpdated);
    const { changes } = await this.#writes.run(ifUpdated === undefined ? c.replace : c.replace + IF_UPDATED, params).catch((e: unknown) => {
      throw this.#failure(model, c, e);
    });
    if (changes === 1) return { ok: true, value: written(c.shape.columns, id, updated, data) };
    return { ok: false, reason: this.#missReason(c, id, ifUpdated) };
  }

  async delete(model: Model, id: number, ifUpdated?: string): Promise<WriteResult<void>> {
    const c = this.#byModel.get(model) ?? (await this.#collection(model));
    const sql = ifUpdated === undefined ? c.delete : c.delete + IF_UPDATED;
    const { changes } = await this.#writes.run(sql, ifUpdated === undefined ? [id] : [id, ifUpdated]);
    if (changes === 1) return { ok: true, value: undefined };
    return { ok: false, reason: this.#missReason(c, id, ifUpdated) };
  }

  async ping(): Promise<void> {
    if (this.#closed) throw new Error('the store is closed');
    this.#statements.row('SELECT 1', []);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writes.close();
    if (this.#path !== undefined) readers.close(this.#path);
    this.#statements.close();
    for (const reader of this.#streamReaders.splice(0)) closeReader(reader);
    this.#collections.clear();
    this.#byModel = new WeakMap();
    this.#leavePageCache?.();
    this.#db.close();
  }

  /** Why a conditional write changed nothing: the member is gone, or it changed (read after the write). */
  #missReason(c: Collection, id: number, ifUpdated: string | undefined): 'not-found' | 'conflict' {
    if (ifUpdated === undefined) return 'not-found';
    return this.#statements.row(c.exists, [id]) ? 'conflict' : 'not-found';
  }

  /**
   * The collection of `model`, its table created or migrated when its fields changed. Callers take
   * a known one from #byModel first, synchronously: a write is then issued in the turn its caller
   * made it (close() acknowledges the writes issued before it; an await here would put them after).
   */
  async #collection(model: Model): Promise<Collection> {
    // One migration of a table at a time, and none looked past: a model changed and changed back
    // while the first change waited for the lock must find the table as that change leaves it,
    // not the description from before it (which it would keep, and fail on, until the next change).
    for (let pending = this.#migrating.get(model.name); pending; pending = this.#migrating.get(model.name)) await pending.catch(() => {});
    if (this.#closed) throw new Error('the store is closed');
    let c = this.#collections.get(model.name);
    if (c?.signature !== modelSignature(model)) {
      const migration = this.#migrate(model);
      this.#migrating.set(model.name, migration);
      try {
        c = await migration;
      } finally {
        if (this.#migrating.get(model.name) === migration) this.#migrating.delete(model.name);
      }
    }
    this.#byModel.set(model, c);
    return c;
  }

  /**
   * The table of `model` made to hold its fields (created, or migrated from other fields). On a
   * file, a table that needs no change is seen so on the event loop (schema.ts collectionAsIs: a
   * few reads, no lock); one that does is migrated in the migration thread (migrator.ts), which the
   * event loop only awaits: other apps' requests, and this app's other reads, go on meanwhile.
   */
  async #migrate(model: Model): Promise<Collection> {
    // Writes issued before the change land before it, in the columns they were made for: the
    // migration then converts them. Run after it, one under the old fields fails (its column
    // is gone) or escapes the conversion (a number left in a field made boolean).
    await this.#writes.settle();
    if (this.#closed) throw new Error('the store is closed');
    const c = this.#path === undefined ? await this.#migrateInMemory(model) : await this.#migrateFile(this.#path, model);
    if (this.#closed) throw new Error('the store is closed');
    this.#collections.set(model.name, c);
    return c;
  }

  /** #migrate of a file. */
  async #migrateFile(path: string, model: Model): Promise<Collection> {
    const asIs = this.#readTransaction(() => collectionAsIs(this.#db, this.#statements, model));
    if (asIs !== undefined) {
      // As a migration would (migrator-thread.ts): a request whose model file changed since it was
      // read is told so, whatever the table holds.
      assertModelCurrent(model);
      return asIs;
    }
    // The migration holds the file's write lock: this store's writes wait for its end here
    // rather than in the writer thread, where they could run out of time.
    return this.#threadWrites!.hold(() => migrateInThread(path, model));
  }

  /** `read` in one read transaction of the main connection (one snapshot). */
  #readTransaction<T>(read: () => T): T {
    if (this.#db.isTransaction) return read();
    this.#statements.exec('BEGIN');
    try {
      return read();
    } finally {
      this.#statements.exec('COMMIT');
    }
  }

  /**
   * #migrate of `sqlite::memory:`, on the event loop: its database is private to the one
   * connection, which no thread can share. In a transaction of that connection, once the writes
   * issued since the change's settle() (to another collection, in the same turn), which hold the
   * group commit's transaction open, are committed.
   */
  #migrateInMemory(model: Model): Promise<Collection> {
    return new Promise((resolve) => {
      this.#writes.commit();
      resolve(
        transaction(this.#db, () => {
          assertModelCurrent(model);
          return migrate(this.#db, this.#statements, model);
        }),
      );
    });
  }
}
