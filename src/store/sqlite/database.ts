// The SQLite database of an app: which file, and how it is opened (durability, Unicode lower-casing).

import { accessSync, constants, mkdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { Deadline, installFunctions } from './deadline.ts';

/** How long a write waits for another connection's lock before failing, in milliseconds. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * The database file of app `name` for a `sqlite:` store URI (README "Configuration"): `sqlite::memory:` is a
 * fresh in-memory database per call; `sqlite:<path>` is `<path>` for the single app (`name` ''),
 * and `<dir>/<stem>.<name><ext>` beside it for tenant `name` (`data/svc.sqlite` → `data/svc.acme.sqlite`).
 * `<ext>` is `.sqlite` when the path has none: SQLite names a database's log and shared memory
 * after it (`<file>-wal`, `<file>-shm`, `<file>-journal`), so a file name ending in the tenant's
 * name would make tenant `acme-wal`'s database tenant `acme`'s log.
 */
export function sqlitePath(uri: string, name: string): string {
  if (!uri.startsWith('sqlite:')) throw new Error(`not a sqlite: store URI: ${uri}`);
  const path = uri.slice('sqlite:'.length);
  if (path === ':memory:') return ':memory:';
  if (path === '') throw new Error('the sqlite: store URI needs a file path, e.g. sqlite:./data/svc.sqlite');
  if (name === '') return path;
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(name)) throw new Error(`invalid app name for a database file: ${JSON.stringify(name)}`);
  const ext = extname(path);
  return join(dirname(path), `${basename(path, ext)}.${name}${ext || '.sqlite'}`);
}

/**
 * Throws, saying why, unless tenants' database files of the `sqlite:<path>` store URI `uri` can be
 * made (its directory is created when missing, and must be writable): tenant mode opens each file
 * on the tenant's first request, and a store no tenant can open should stop the server at start,
 * as it does for the single app.
 */
export function checkTenantFiles(uri: string): void {
  const dir = dirname(sqlitePath(uri, 'tenant'));
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new Error(`store ${uri}: the tenants' database files cannot be made in ${dir} (${(e as Error)?.message ?? e})`);
  }
}

/**
 * Opens (creating its directory) and configures a database file, or `:memory:`; `deadline` bounds
 * its queries. `busyTimeoutMs`: how long SQLite's busy handler waits for another connection's lock,
 * sleeping the thread (0 for the writer thread, which waits on timers instead: GroupCommit).
 */
export function openDatabase(path: string, deadline = new Deadline(), busyTimeoutMs = BUSY_TIMEOUT_MS): DatabaseSync {
  const file = path !== ':memory:';
  if (file) mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  try {
    configure(db, file);
  } catch (e) {
    db.close();
    throw e;
  }
  installFunctions(db, deadline);
  return db;
}

function configure(db: DatabaseSync, file: boolean): void {
  if (file) {
    // WAL: readers do not block the writer, and a commit is one append to the log.
    db.exec('PRAGMA journal_mode = WAL');
    // FULL: every commit fsyncs the log before the write is acknowledged, so an acknowledged
    // write survives a crash of the process and of the machine (NORMAL in WAL mode survives a
    // process crash but may lose the last commits on power loss). https://sqlite.org/pragma.html#pragma_synchronous
    db.exec('PRAGMA synchronous = FULL');
    // No memory map (`PRAGMA mmap_size`): a retrieve by id costs 7-9% less CPU with one when
    // nothing writes, but 4% more with ~100 creates a second beside it (`AB_ALSO='POST
    // /resources/employees' node bench/ab.ts …`). In WAL mode the first read after any commit
    // resets the connection's cache and unmaps the whole file (pager.c, pagerBeginReadTransaction),
    // so each write costs an munmap and the page faults that bring the pages back.
  }
  // The schema holds only our own tables and triggers; never run app functions from it.
  db.exec('PRAGMA trusted_schema = OFF');
}

/** SQLite's own page cache per connection (`cache_size` -2000): what a store keeps at least. */
const MIN_PAGE_CACHE_KIB = 2000;
/** The most one store keeps, however few are open. */
const MAX_PAGE_CACHE_KIB = 64 * 1024;
/** The budget at most, and by default (an eighth of the default --max-rss). */
const MAX_PAGE_CACHE_BUDGET_MIB = 256;

/**
 * The stores' main connections that share the page cache budget, and that budget in KiB: the one
 * the last store to join gave (a process opens every store with the same one, from --max-rss).
 */
const sharing = new Set<DatabaseSync>();
let budgetKiB = 0;

/**
 * Has `db`, a store's main connection to a file, keep up to its share of `budgetMiB` (at most
 * MAX_PAGE_CACHE_BUDGET_MIB) of database pages in memory: the budget divided among the stores
 * open (MIN_PAGE_CACHE_KIB to MAX_PAGE_CACHE_KIB each), every share made again as stores open and
 * close. Returns what lets it go (before it closes). SQLite's default, 2 MB a connection, holds a
 * quarter of the bench's 10,000 members (8 MB of table): most retrieves by id read their page from
 * the file again (pread, 3.3% of the server's CPU under bench/perf.ts, 0 with the whole table
 * kept). With it kept, a retrieve by id ran at 1.01-1.13 times the rate (1.03 over 12 rounds) at 0.88-0.99
 * times the CPU in four runs of `AB_B_CHECKOUT=<checkout without it> node bench/ab.ts
 * '/resources/employees/{id}' 12 3 svc '' ''`. In WAL mode a read after another connection's
 * commit empties the cache (pager.c, pagerBeginReadTransaction): with creates beside the
 * retrieves (AB_ALSO) both read 1.00. Memory is taken only for pages read. SQLite's own bound for
 * the process, `PRAGMA soft_heap_limit`, bounded nothing here (a whole 10 MB file read with a limit
 * of 4 MB grew the process as much as without one): hence a budget of svc's.
 */
export function sharePageCache(db: DatabaseSync, budgetMiB = MAX_PAGE_CACHE_BUDGET_MIB): () => void {
  budgetKiB = Math.min(budgetMiB, MAX_PAGE_CACHE_BUDGET_MIB) * 1024;
  sharing.add(db);
  reshare();
  return () => {
    if (sharing.delete(db)) reshare();
  };
}

function reshare(): void {
  const each = Math.round(Math.min(MAX_PAGE_CACHE_KIB, Math.max(MIN_PAGE_CACHE_KIB, budgetKiB / Math.max(1, sharing.size))));
  for (const db of sharing) {
    // One closed without leaving would fail every store's opening from then on.
    if (db.isOpen) db.exec(`PRAGMA cache_size = -${each}`);
    else sharing.delete(db);
  }
}

/**
 * The writer thread's connection to a database file (writer-thread.ts): as openDatabase's, with
 * no busy handler (its writes wait for another connection's lock on timers, GroupCommit) and its
 * statement journals in memory. A statement of a transaction that already changed pages journals
 * those it changes again, so that it alone can be undone (a failed constraint); past 64 KiB SQLite
 * moves that journal to a temporary file for the rest of the transaction (pager.c,
 * SQLITE_STMTJRNL_SPILL), unless temporary files are in memory. A group commit's creates touch a
 * page of every field's index each: 3,200 durable creates on 32 connections opened 72 such files
 * and wrote them 42,000 times, against 8,000 writes to the log (strace). In memory, a durable
 * create took 1.33 times the rate at 0.82 times the server's CPU per request (bench/ab.ts, below).
 * The journal holds at most the pages of one statement, already in the page cache; durability is
 * the log's, unchanged. https://sqlite.org/tempfiles.html#statement_journals
 *
 *   AB_B_CHECKOUT=<checkout without it> node bench/ab.ts 'POST /resources/employees' 4 3 svc '' ''
 */
export function openWriter(path: string): DatabaseSync {
  const db = openDatabase(path, undefined, 0);
  try {
    db.exec('PRAGMA temp_store = MEMORY');
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/**
 * A read-only connection to a database file that a store opened (and so configured): for the
 * reader threads and for streamed lists. `deadline` bounds its queries.
 */
export function openReader(path: string, deadline: Deadline): DatabaseSync {
  const db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.exec('PRAGMA query_only = ON');
    db.exec('PRAGMA trusted_schema = OFF');
  } catch (e) {
    db.close();
    throw e;
  }
  installFunctions(db, deadline);
  return db;
}

/**
 * `open()`, run again while it fails with "database is busy", after pauses of 5 ms doubling to
 * 100 ms, for at most `boundMs`. SQLite answers busy without waiting for its busy timeout in a few
 * cases (https://sqlite.org/wal.html#sometimes_queries_return_sqlite_busy_in_wal_mode): a
 * connection opening while the last one to close cleans up the WAL, or while another runs
 * recovery. Two worker processes opening one new database at once met one: `PRAGMA journal_mode
 * = WAL` failed at once, and the worker could not start.
 */
export async function retryWhileBusy<T>(open: () => T, boundMs = BUSY_TIMEOUT_MS, busy: (e: unknown) => boolean = isBusy): Promise<T> {
  const started = performance.now();
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      return open();
    } catch (e) {
      if (!busy(e) || performance.now() - started + pause > boundMs) throw e;
      await sleep(pause);
    }
  }
}

/** Whether `e` is SQLite's "database or disk is full" (a write found no room: https://sqlite.org/rescode.html#full). */
export function isFull(e: unknown): boolean {
  const code = (e as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && (code & 0xff) === 13;
}

/**
 * Whether `e` is SQLite's "database is busy/locked" (after BUSY_TIMEOUT_MS of waiting for another
 * connection): the store is there but cannot answer in time, as a MongoDB write conflict or a
 * lost primary. https://sqlite.org/rescode.html#busy
 */
export function isBusy(e: unknown): boolean {
  const code = (e as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && ((code & 0xff) === 5 || (code & 0xff) === 6);
}
