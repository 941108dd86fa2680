// The embedded store (README "Storage"): one SQLite database per app through Node's built-in node:sqlite.

import { mkdirSync } from 'node:fs';
import { dirname, extname, join, basename } from 'node:path';
import { DatabaseSync, type SQLInputValue, type SQLOutputValue, type StatementSync } from 'node:sqlite';
import type { FieldType, Filter, Member, MemberData, Model, Query, Value } from '../model/types.ts';
import type { Store, WriteResult } from './store.ts';
import { columnsSql, countSql, LOWER_FUNCTION, lowerCase, quoteIdent, selectSql, toSql, type Column, type TableShape } from './sql.ts';

/** How long a write waits for another connection's lock before failing, in milliseconds. */
const BUSY_TIMEOUT_MS = 5_000;
/** Prepared statements kept per database, by SQL text (least recently used dropped first). */
const STATEMENT_CACHE_SIZE = 256;
/** Idle copies of one statement kept for concurrent iterations of the same list query. */
const IDLE_PER_STATEMENT = 4;

/** Pages of at most this many members are read with one `all()` instead of streamed. */
const SMALL_PAGE = 256;

/** Version of the bookkeeping tables below, in `PRAGMA user_version`. */
const SCHEMA_VERSION = 1;

/**
 * Bookkeeping, created once per database. `svc_collections` maps a model name (case-sensitive,
 * as MongoDB's collection names are) to its table and keeps its member count, maintained by
 * triggers in the same transaction as every insert and delete, so an unfiltered count never
 * scans the table (README "Collection queries"). `svc_fields` maps each field to its column, chosen once and kept,
 * because SQLite identifiers are case-insensitive while field names are not (`Name` ≠ `name`).
 */
const BOOKKEEPING_SQL = `
  CREATE TABLE IF NOT EXISTS svc_collections (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    tbl TEXT NOT NULL,
    count INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE IF NOT EXISTS svc_fields (
    collection INTEGER NOT NULL,
    field TEXT NOT NULL,
    col TEXT NOT NULL,
    PRIMARY KEY (collection, field)
  ) WITHOUT ROWID;
  PRAGMA user_version = ${SCHEMA_VERSION};`;

/** Column affinity per field type: https://sqlite.org/datatype3.html#type_affinity */
const AFFINITY: Record<FieldType, string> = {
  auto: 'INTEGER',
  string: 'TEXT',
  text: 'TEXT',
  date: 'TEXT',
  'date-time': 'TEXT',
  integer: 'INTEGER',
  boolean: 'INTEGER',
  float: 'REAL',
};

/** Table names SQLite or this store reserve: a model with such a name gets a `~` prefix. */
const RESERVED_PREFIX = /^(sqlite_|svc_)/i;

const decoder = new TextDecoder();

/**
 * The database file of app `name` for a `sqlite:` store URI (README "Configuration"): `sqlite::memory:` is a
 * fresh in-memory database per call; `sqlite:<path>` is `<path>` for the single app (`name` ''),
 * and `<dir>/<stem>.<name><ext>` beside it for tenant `name` (`data/svc.sqlite` → `data/svc.acme.sqlite`).
 */
export function sqlitePath(uri: string, name: string): string {
  if (!uri.startsWith('sqlite:')) throw new Error(`not a sqlite: store URI: ${uri}`);
  const path = uri.slice('sqlite:'.length);
  if (path === ':memory:') return ':memory:';
  if (path === '') throw new Error('the sqlite: store URI needs a file path, e.g. sqlite:./data/svc.sqlite');
  if (name === '') return path;
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(name)) throw new Error(`invalid app name for a database file: ${JSON.stringify(name)}`);
  const ext = extname(path);
  return join(dirname(path), `${basename(path, ext)}.${name}${ext}`);
}

export async function openSqliteStore(uri: string, name: string): Promise<Store> {
  return new SqliteStore(openDatabase(sqlitePath(uri, name)));
}

/** Opens (creating its directory) and configures a database file, or `:memory:`. */
export function openDatabase(path: string): DatabaseSync {
  const file = path !== ':memory:';
  if (file) mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
  if (file) {
    // WAL: readers do not block the writer, and a commit is one append to the log.
    db.exec('PRAGMA journal_mode = WAL');
    // FULL: every commit fsyncs the log before the write is acknowledged, so an acknowledged
    // write survives a crash of the process and of the machine (NORMAL in WAL mode survives a
    // process crash but may lose the last commits on power loss). https://sqlite.org/pragma.html#pragma_synchronous
    db.exec('PRAGMA synchronous = FULL');
  }
  // The schema holds only our own tables and triggers; never run app functions from it.
  db.exec('PRAGMA trusted_schema = OFF');
  db.function(LOWER_FUNCTION, { deterministic: true, directOnly: true }, lowerCase);
  return db;
}

/** What the store knows of one model's table, valid while the model's fields stay the same. */
interface Collection {
  /** The declared fields' names and types this was built for. */
  readonly signature: string;
  /** `svc_collections.id`. */
  readonly key: number;
  readonly shape: TableShape;
  readonly insert: string;
  readonly select: string;
  readonly exists: string;
  /** UPDATE of `updated` and every declared field; the conditional form adds `AND "updated" = ?`. */
  readonly replace: string;
  readonly delete: string;
}

/** A conditional write's SQL: the check and the write are one statement, so nothing changes in between. */
const IF_UPDATED = ' AND "updated" = ?';

/** Model objects are immutable (a changed file makes a new one), so a signature is computed once. */
const signatures = new WeakMap<Model, string>();

function signature(model: Model): string {
  let sig = signatures.get(model);
  if (sig === undefined) {
    sig = model.declared.map((f) => `${f.name}:${f.type}`).join(',');
    signatures.set(model, sig);
  }
  return sig;
}

/** A stored value in its canonical form for a field of `type`. */
function fromSql(type: FieldType, v: NonNullable<SQLOutputValue>): Value {
  switch (type) {
    case 'boolean':
      return typeof v === 'number' ? v !== 0 : Boolean(v);
    case 'integer':
    case 'float':
    case 'auto':
      return typeof v === 'number' ? v : Number(v);
    default:
      // A BLOB is text that holds a NUL (see selectExpr); a number is left from an earlier field type.
      return typeof v === 'string' ? v : v instanceof Uint8Array ? decoder.decode(v) : String(v);
  }
}

function toMember(columns: readonly Column[], row: readonly SQLOutputValue[]): Member {
  const member: Member = { id: row[0] as number, updated: row[1] as string };
  for (let i = 2; i < columns.length; i++) {
    const v = row[i];
    if (v !== null && v !== undefined) member[columns[i]!.field] = fromSql(columns[i]!.type, v);
  }
  return member;
}

/** The member as written: `id`, `updated`, then the present declared fields in model order. */
function written(columns: readonly Column[], id: number, updated: string, data: MemberData): Member {
  const member: Member = { id, updated };
  for (let i = 2; i < columns.length; i++) {
    const v = data[columns[i]!.field];
    if (v !== null && v !== undefined) member[columns[i]!.field] = v;
  }
  return member;
}

function values(columns: readonly Column[], data: MemberData): SQLInputValue[] {
  const out: SQLInputValue[] = [];
  for (let i = 2; i < columns.length; i++) out.push(toSql(data[columns[i]!.field] ?? null));
  return out;
}

class SqliteStore implements Store {
  readonly #db: DatabaseSync;
  /** By model name. */
  readonly #collections = new Map<string, Collection>();
  /** By Model object: the server ensures the same object before every operation. */
  #byModel = new WeakMap<Model, Collection>();
  /** Idle prepared statements by SQL text, least recently used first. */
  readonly #statements = new Map<string, StatementSync[]>();
  /** Writes done in the open transaction, each waiting for its commit to be acknowledged. */
  #batch: { ack: () => void; fail: (e: unknown) => void }[] | undefined;
  #closed = false;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#transaction(() => db.exec(BOOKKEEPING_SQL));
  }

  async ensure(model: Model): Promise<void> {
    this.#collection(model);
  }

  async *list(model: Model, query: Query): AsyncIterable<Member> {
    const c = this.#collection(model);
    this.#commit();
    const { sql, params } = selectSql(c.shape, query);
    if (query.count !== undefined && query.count <= SMALL_PAGE) {
      // A bounded page is read in one call: cheaper than stepping row by row, and small.
      const rows = this.#statement(sql).all(...params) as unknown as SQLOutputValue[][];
      for (const row of rows) yield toMember(c.shape.columns, row);
      return;
    }
    // A statement steps through one result at a time; concurrent lists of the same query each
    // need their own copy, so it is taken out of the cache while iterating.
    const stmt = this.#checkout(sql);
    const rows = stmt.iterate(...params) as Iterator<SQLOutputValue[]>;
    try {
      for (let r = rows.next(); !r.done; r = rows.next()) yield toMember(c.shape.columns, r.value);
    } finally {
      // Also when the consumer stops early: resets the statement, ending its read transaction.
      if (!this.#closed) {
        rows.return?.();
        this.#checkin(sql, stmt);
      }
    }
  }

  async count(model: Model, filters: readonly Filter[]): Promise<number> {
    const c = this.#collection(model);
    this.#commit();
    if (filters.length === 0) {
      return this.#get('SELECT count FROM svc_collections WHERE id = ?', [c.key])![0] as number;
    }
    const { sql, params } = countSql(c.shape, filters);
    return this.#get(sql, params)![0] as number;
  }

  async get(model: Model, id: number): Promise<Member | null> {
    const c = this.#collection(model);
    this.#commit();
    const row = this.#get(c.select, [id]);
    return row ? toMember(c.shape.columns, row) : null;
  }

  async insert(model: Model, data: MemberData, updated: string): Promise<Member> {
    const c = this.#collection(model);
    return this.#write(() => {
      // One statement: the row and its count (by trigger) are written together.
      const { lastInsertRowid } = this.#statement(c.insert).run(updated, ...values(c.shape.columns, data));
      return written(c.shape.columns, Number(lastInsertRowid), updated, data);
    });
  }

  async replace(model: Model, id: number, data: MemberData, updated: string, ifUpdated?: string): Promise<WriteResult<Member>> {
    const c = this.#collection(model);
    return this.#write((): WriteResult<Member> => {
      const params = [updated, ...values(c.shape.columns, data), id];
      if (ifUpdated !== undefined) params.push(ifUpdated);
      const sql = ifUpdated === undefined ? c.replace : c.replace + IF_UPDATED;
      if (Number(this.#statement(sql).run(...params).changes) === 1) {
        return { ok: true, value: written(c.shape.columns, id, updated, data) };
      }
      return { ok: false, reason: this.#missReason(c, id, ifUpdated) };
    });
  }

  async delete(model: Model, id: number, ifUpdated?: string): Promise<WriteResult<void>> {
    const c = this.#collection(model);
    return this.#write((): WriteResult<void> => {
      const sql = ifUpdated === undefined ? c.delete : c.delete + IF_UPDATED;
      const params: SQLInputValue[] = ifUpdated === undefined ? [id] : [id, ifUpdated];
      if (Number(this.#statement(sql).run(...params).changes) === 1) return { ok: true, value: undefined };
      return { ok: false, reason: this.#missReason(c, id, ifUpdated) };
    });
  }

  async ping(): Promise<void> {
    if (this.#closed) throw new Error('the store is closed');
    this.#db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#commit();
    this.#closed = true;
    this.#statements.clear();
    this.#collections.clear();
    this.#byModel = new WeakMap();
    this.#db.close();
  }

  /** Why a conditional write changed nothing: the member is gone, or it changed. */
  #missReason(c: Collection, id: number, ifUpdated: string | undefined): 'not-found' | 'conflict' {
    if (ifUpdated === undefined) return 'not-found';
    return this.#get(c.exists, [id]) ? 'conflict' : 'not-found';
  }

  /** The collection of `model`, its table created or migrated when its fields changed. */
  #collection(model: Model): Collection {
    const known = this.#byModel.get(model);
    if (known) return known;
    if (this.#closed) throw new Error('the store is closed');
    const sig = signature(model);
    let c = this.#collections.get(model.name);
    if (c?.signature !== sig) {
      c = this.#transaction(() => this.#migrate(model, sig));
      this.#collections.set(model.name, c);
    }
    this.#byModel.set(model, c);
    return c;
  }

  /**
   * Creates the model's table, or adds the columns of fields the model gained. Columns of
   * removed fields stay, with their data: a field that comes back finds its values again.
   */
  #migrate(model: Model, sig: string): Collection {
    const db = this.#db;
    let row = this.#get('SELECT id, tbl FROM svc_collections WHERE name = ?', [model.name]);
    if (!row) {
      const base = RESERVED_PREFIX.test(model.name) ? `~${model.name}` : model.name;
      const table = this.#freeName(base, (n) => this.#get('SELECT 1 FROM sqlite_schema WHERE lower(name) = lower(?)', [n]) !== undefined);
      // AUTOINCREMENT: ids are never reused, even after the highest is deleted.
      db.exec(`CREATE TABLE ${quoteIdent(table)} ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "updated" TEXT NOT NULL)`);
      const key = Number(this.#statement('INSERT INTO svc_collections (name, tbl) VALUES (?, ?)').run(model.name, table).lastInsertRowid);
      // Only an integer from SQLite is written into the trigger bodies (triggers take no parameters).
      for (const [suffix, event, delta] of [['count+', 'INSERT', '+'], ['count-', 'DELETE', '-']] as const) {
        db.exec(
          `CREATE TRIGGER ${quoteIdent(`${table}/${suffix}`)} AFTER ${event} ON ${quoteIdent(table)} ` +
            `BEGIN UPDATE svc_collections SET count = count ${delta} 1 WHERE id = ${key}; END`,
        );
      }
      db.exec(`CREATE INDEX ${quoteIdent(`${table}/updated`)} ON ${quoteIdent(table)} ("updated", "id")`);
      row = [key, table];
    }
    const key = row[0] as number;
    const table = row[1] as string;

    const columnOf = new Map<string, string>();
    for (const [field, col] of this.#all('SELECT field, col FROM svc_fields WHERE collection = ?', [key])) {
      columnOf.set(field as string, col as string);
    }
    const taken = new Set(['id', 'updated', ...columnOf.values()].map((n) => n.toLowerCase()));
    for (const field of model.declared) {
      if (columnOf.has(field.name)) continue;
      const col = this.#freeName(field.name, (n) => taken.has(n.toLowerCase()));
      taken.add(col.toLowerCase());
      columnOf.set(field.name, col);
      db.exec(`ALTER TABLE ${quoteIdent(table)} ADD COLUMN ${quoteIdent(col)} ${AFFINITY[field.type]}`);
      // (field, id) serves a first page in the field's order, ties by id, without sorting.
      db.exec(`CREATE INDEX ${quoteIdent(`${table}/${col}`)} ON ${quoteIdent(table)} (${quoteIdent(col)}, "id")`);
      this.#statement('INSERT INTO svc_fields (collection, field, col) VALUES (?, ?, ?)').run(key, field.name, col);
    }

    const shape: TableShape = {
      table,
      columns: [
        { field: 'id', column: 'id', type: 'auto' },
        { field: 'updated', column: 'updated', type: 'date-time' },
        ...model.declared.map((f) => ({ field: f.name, column: columnOf.get(f.name)!, type: f.type })),
      ],
    };
    const t = quoteIdent(table);
    const stored = shape.columns.slice(1);
    return {
      signature: sig,
      key,
      shape,
      insert: `INSERT INTO ${t} (${stored.map((c) => quoteIdent(c.column)).join(', ')}) VALUES (${stored.map(() => '?').join(', ')})`,
      select: `SELECT ${columnsSql(shape)} FROM ${t} WHERE "id" = ?`,
      exists: `SELECT 1 FROM ${t} WHERE "id" = ?`,
      replace: `UPDATE ${t} SET ${stored.map((c) => `${quoteIdent(c.column)} = ?`).join(', ')} WHERE "id" = ?`,
      delete: `DELETE FROM ${t} WHERE "id" = ?`,
    };
  }

  /** `base`, or `base~2`, `base~3`, … : the first that is not `taken` (`~` is in no model or field name). */
  #freeName(base: string, taken: (name: string) => boolean): string {
    let name = base;
    for (let n = 2; taken(name); n++) name = `${base}~${n}`;
    return name;
  }

  /**
   * Group commit. A write runs at once inside the open transaction (opening one if needed), and
   * is acknowledged when that transaction commits, on the next turn of the event loop: the
   * writes of every request that arrived meanwhile share one fsync, which is what a durable
   * write costs (SQLite FAQ 19: https://sqlite.org/faq.html#q19). Reads commit first, so
   * nobody reads a write before it is durable.
   */
  #write<T>(fn: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('the store is closed'));
    if (this.#batch === undefined) {
      this.#db.exec('BEGIN IMMEDIATE');
      this.#batch = [];
      setImmediate(() => this.#commit());
    }
    let result: T;
    try {
      result = fn();
    } catch (e) {
      // Most errors undo only the statement; some (I/O, a full disk) end the whole transaction.
      if (!this.#db.isTransaction) this.#abort(e);
      return Promise.reject(e);
    }
    return new Promise((resolve, reject) => this.#batch!.push({ ack: () => resolve(result), fail: reject }));
  }

  /** Commits the open write transaction, if any, and acknowledges its writes. */
  #commit(): void {
    const batch = this.#batch;
    if (batch === undefined) return;
    try {
      this.#db.exec('COMMIT');
    } catch (e) {
      this.#abort(e);
      return;
    }
    this.#batch = undefined;
    for (const w of batch) w.ack();
  }

  /** Rolls the open write transaction back and fails its writes. */
  #abort(e: unknown): void {
    const batch = this.#batch ?? [];
    this.#batch = undefined;
    try {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
    } finally {
      for (const w of batch) w.fail(e);
    }
  }

  /** Runs `fn` in a transaction of its own (after committing the open writes). */
  #transaction<T>(fn: () => T): T {
    this.#commit();
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      this.#db.exec('COMMIT');
      return result;
    } catch (e) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw e;
    }
  }

  /** A cached prepared statement for a use that runs to completion before returning. */
  #statement(sql: string): StatementSync {
    const idle = this.#statements.get(sql);
    if (idle && idle.length > 0) {
      this.#statements.delete(sql); // re-insert: most recently used last
      this.#statements.set(sql, idle);
      return idle[0]!;
    }
    const stmt = this.#prepare(sql);
    this.#checkin(sql, stmt);
    return stmt;
  }

  /** A prepared statement for the caller alone, until it is checked in again. */
  #checkout(sql: string): StatementSync {
    return this.#statements.get(sql)?.pop() ?? this.#prepare(sql);
  }

  #checkin(sql: string, stmt: StatementSync): void {
    let idle = this.#statements.get(sql);
    if (idle) this.#statements.delete(sql);
    else idle = [];
    if (idle.length < IDLE_PER_STATEMENT) idle.push(stmt);
    this.#statements.set(sql, idle);
    if (this.#statements.size > STATEMENT_CACHE_SIZE) {
      // Dropped statements are finalized when garbage-collected.
      this.#statements.delete(this.#statements.keys().next().value!);
    }
  }

  #prepare(sql: string): StatementSync {
    if (this.#closed) throw new Error('the store is closed');
    const stmt = this.#db.prepare(sql);
    stmt.setReturnArrays(true);
    return stmt;
  }

  #get(sql: string, params: SQLInputValue[]): SQLOutputValue[] | undefined {
    return this.#statement(sql).get(...params) as SQLOutputValue[] | undefined;
  }

  #all(sql: string, params: SQLInputValue[]): SQLOutputValue[][] {
    return this.#statement(sql).all(...params) as unknown as SQLOutputValue[][];
  }
}
