// Group commit: the writes of every request that arrives within one turn of the event loop share one fsync.

import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { storeUnavailable } from '../store.ts';
import { isBusy } from './database.ts';
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

/**
 * A write runs at once inside the open transaction (opening one if needed), and is acknowledged
 * when that transaction commits, on the next turn of the event loop: the writes of every request
 * that arrived meanwhile share one fsync, which is what a durable write costs (SQLite FAQ 19:
 * https://sqlite.org/faq.html#q19). Reads commit first (`commit()`), so nobody reads a write
 * before it is durable.
 */
export class GroupCommit implements Writes {
  readonly #db: DatabaseSync;
  readonly #statements: Statements;
  /** Writes done in the open transaction, each waiting for its commit to be acknowledged. */
  #batch: { ack: () => void; fail: (e: unknown) => void }[] | undefined;
  #closed = false;
  /** Commits so far: the number of the last. */
  commits = 0;

  constructor(db: DatabaseSync, statements: Statements) {
    this.#db = db;
    this.#statements = statements;
  }

  /** `sql` as a write of this group (its statement prepared once, by `statements`). */
  run(sql: string, params: readonly SQLInputValue[]): Promise<RunResult> {
    return this.write(() => {
      const r = this.#statements.get(sql).run(...params);
      return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
    });
  }

  write<T>(fn: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('the store is closed'));
    if (this.#batch === undefined) {
      try {
        this.#db.exec('BEGIN IMMEDIATE');
      } catch (e) {
        return Promise.reject(failure(e));
      }
      this.#batch = [];
      setImmediate(() => this.commit());
    }
    let result: T;
    try {
      result = fn();
    } catch (e) {
      // Most errors undo only the statement; some (I/O, a full disk) end the whole transaction.
      if (!this.#db.isTransaction) this.#abort(e);
      return Promise.reject(failure(e));
    }
    return new Promise((resolve, reject) => this.#batch!.push({ ack: () => resolve(result), fail: reject }));
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

  /** Writes run when issued: committing them settles them. */
  async settle(): Promise<void> {
    this.commit();
  }

  /** Commits what is open; later writes are refused. */
  async close(): Promise<void> {
    this.commit();
    this.#closed = true;
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

/** A busy database is a store that cannot answer in time (503); any other error stays as it is. */
function failure(e: unknown): unknown {
  return isBusy(e) ? storeUnavailable(e) : e;
}
