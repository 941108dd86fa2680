// Group commit: the writes of every request that arrives within one turn of the event loop share one fsync.

import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { SvcError } from '../../errors.ts';
import { storeFull, storeUnavailable } from '../store.ts';
import { BUSY_TIMEOUT_MS, isBusy, isFull, retryWhileBusy } from './database.ts';
import type { Statements } from './statements.ts';

/** What a write statement did. */
export interface RunResult {
  readonly changes: number;
  readonly lastInsertRowid: number;
}

/**
 * How a store writes: each statement is acknowledged once durable. Writes are run by the
 * connection that reads (GroupCommit, for `sqlite::memory:`) or by the writer thread (writer.ts).
 */
export interface Writes {
  run(sql: string, params: readonly SQLInputValue[]): Promise<RunResult>;
  /** Makes the writes issued so far readable by the reading connection (commits them, if it holds them). */
  commit(): void;
  /** Runs and acknowledges (or fails) the writes issued so far: a change of schema waits for them. */
  settle(): Promise<void>;
  /** Acknowledges what is issued; later writes are refused. */
  close(): Promise<void>;
}

/** A write waiting for the write lock (another connection holds it). */
interface Waiting {
  /** Runs it, now that the lock may be taken. */
  readonly run: () => void;
  /** Until when (performance.now(), ms) it may wait. */
  readonly until: number;
  readonly fail: (e: unknown) => void;
}

/** Pauses between attempts at a lock another connection holds, ms: the first, and the longest (as retryWhileBusy's). */
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 100;

/**
 * A write runs at once inside the open transaction (opening one if needed), and is acknowledged
 * when that transaction commits, on the next turn of the event loop: the writes of every request
 * that arrived meanwhile share one fsync, which is what a durable write costs (SQLite FAQ 19:
 * https://sqlite.org/faq.html#q19). Reads commit first (`commit()`), so nobody reads a write
 * before it is durable.
 *
 * While another connection holds the write lock, a write given time to wait (`until`) waits on a
 * timer, not in SQLite's busy handler, which would sleep the thread: the writer thread runs every
 * app's writes, and the other files' go on meanwhile. The connection's busy timeout is then 0
 * (openWriter, database.ts). One attempt at the lock per connection at a time: writes
 * issued meanwhile wait behind the first, in order, and each fails at its own deadline.
 */
export class GroupCommit implements Writes {
  readonly #db: DatabaseSync;
  readonly #statements: Statements;
  /** Writes done in the open transaction, each waiting for its commit to be acknowledged. */
  #batch: { ack: () => void; fail: (e: unknown) => void }[] | undefined;
  /** Writes waiting for the lock, in the order issued; empty while a transaction is open. */
  #waiting: Waiting[] = [];
  /** Settled when #waiting empties (settle and close wait for it). */
  #drained: PromiseWithResolvers<void> | undefined;
  #closed = false;
  /** Commits so far: the number of the last. */
  commits = 0;

  constructor(db: DatabaseSync, statements: Statements) {
    this.#db = db;
    this.#statements = statements;
  }

  /** `sql` as a write of this group (its statement prepared once, by `statements`); `until` as for `write`. */
  run(sql: string, params: readonly SQLInputValue[], until?: number): Promise<RunResult> {
    return this.write(() => {
      const r = this.#statements.get(sql).run(...params);
      return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
    }, until);
  }

  /**
   * `fn` run in the open transaction, acknowledged at its commit. While another connection holds
   * the lock, it waits until `until` (performance.now(), ms; by default it fails at once, after
   * whatever the connection's busy timeout waited), then fails as store-unavailable.
   */
  write<T>(fn: () => T, until = performance.now()): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('the store is closed'));
    return new Promise<T>((resolve, reject) => {
      if (this.#waiting.length > 0) return void this.#wait(() => this.#runNow(fn, resolve, reject), until, reject);
      if (this.#batch === undefined) {
        try {
          this.#begin();
        } catch (e) {
          if (isBusy(e) && performance.now() < until) return void this.#wait(() => this.#runNow(fn, resolve, reject), until, reject);
          return reject(failure(e));
        }
      }
      this.#runNow(fn, resolve, reject);
    });
  }

  /** Runs `fn` in the open transaction (opening one if none is), and settles it at its commit. */
  #runNow<T>(fn: () => T, resolve: (r: T) => void, reject: (e: unknown) => void): void {
    if (this.#batch === undefined) {
      try {
        this.#begin();
      } catch (e) {
        return reject(failure(e));
      }
    }
    let result: T;
    try {
      result = fn();
    } catch (e) {
      // Most errors undo only the statement; some (I/O, a full disk) end the whole transaction.
      if (!this.#db.isTransaction) this.#abort(e);
      return reject(failure(e));
    }
    this.#batch!.push({ ack: () => resolve(result), fail: reject });
  }

  /** Opens the write transaction, committed on the next turn of the event loop. */
  #begin(): void {
    this.#db.exec('BEGIN IMMEDIATE');
    this.#batch = [];
    setImmediate(() => this.commit());
  }

  /** Queues a write for the lock; the first one starts the attempts. */
  #wait(run: () => void, until: number, fail: (e: unknown) => void): void {
    this.#waiting.push({ run, until, fail });
    if (this.#waiting.length > 1) return;
    this.#drained = Promise.withResolvers();
    this.#retryAfter(FIRST_PAUSE_MS);
  }

  /** The next attempt at the lock, after `pause` ms or at the earliest deadline of the writes waiting, if sooner. */
  #retryAfter(pause: number): void {
    const earliest = Math.min(...this.#waiting.map((w) => w.until));
    setTimeout(() => this.#retry(Math.min(pause * 2, LONGEST_PAUSE_MS)), Math.max(0, Math.min(pause, earliest - performance.now())));
  }

  /** Tries the lock again: got, the waiting writes run in it, in order; busy still, those past their deadline fail. */
  #retry(nextPause: number): void {
    try {
      this.#begin();
    } catch (e) {
      const now = performance.now();
      const failed = isBusy(e) ? this.#waiting.filter((w) => w.until <= now) : this.#waiting;
      this.#waiting = this.#waiting.filter((w) => !failed.includes(w));
      for (const w of failed) w.fail(failure(e));
      if (this.#waiting.length > 0) return this.#retryAfter(nextPause);
      return this.#drain();
    }
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) w.run();
    this.#drain();
  }

  #drain(): void {
    this.#drained?.resolve();
    this.#drained = undefined;
  }

  /** Commits the open write transaction, if any, and acknowledges its writes. */
  commit(): void {
    const batch = this.#batch;
    if (batch === undefined) return;
    try {
      this.#db.exec('COMMIT');
    } catch (e) {
      this.#abort(e);
      return;
    }
    this.#batch = undefined;
    this.commits++;
    for (const w of batch) w.ack();
  }

  /** Writes run when issued (or when the lock they wait for is theirs): committing them settles them. */
  async settle(): Promise<void> {
    if (this.#drained) await this.#drained.promise;
    this.commit();
  }

  /** Commits what is open, once the writes waiting for the lock have it (or failed); later writes are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#drained) await this.#drained.promise;
    this.commit();
  }

  /** Rolls the open write transaction back and fails its writes. */
  #abort(e: unknown): void {
    const batch = this.#batch ?? [];
    this.#batch = undefined;
    try {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
    } finally {
      for (const w of batch) w.fail(failure(e));
    }
  }
}

/** Runs `fn` in a write transaction of its own on `db`, for a change of schema: committed, or rolled back when it throws. */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (e) {
    throw failure(e);
  }
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (e) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw failure(e);
  }
}

/**
 * `fn` in a write transaction of its own on `db` (as `transaction`), whose lock is taken without
 * blocking the thread: while another connection (the writer thread, another process) holds it,
 * tried again after pauses (retryWhileBusy) for up to BUSY_TIMEOUT_MS, then store-unavailable.
 * SQLite's own busy handler would sleep the thread meanwhile, which on the event loop is every
 * app's requests.
 */
export function lockedTransaction<T>(db: DatabaseSync, fn: () => T): Promise<T> {
  return retryWhileBusy(
    () => {
      db.exec('PRAGMA busy_timeout = 0');
      try {
        return transaction(db, fn);
      } finally {
        db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    },
    BUSY_TIMEOUT_MS,
    (e) => e instanceof SvcError && e.code === 'store-unavailable',
  );
}

/** A busy database is a store that cannot answer in time (503), a full one one with no room (507); any other error stays as it is. */
function failure(e: unknown): unknown {
  if (isBusy(e)) return storeUnavailable(e);
  return isFull(e) ? storeFull(e) : e;
}
