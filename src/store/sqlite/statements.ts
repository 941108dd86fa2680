// Prepared statements of one database, cached by SQL text (least recently used dropped first).

import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from 'node:sqlite';

/** Prepared statements kept per database, by SQL text. */
const STATEMENT_CACHE_SIZE = 256;
/** Idle copies of one statement kept for concurrent iterations of the same list query. */
const IDLE_PER_STATEMENT = 4;

export class Statements {
  readonly #db: DatabaseSync;
  /** Idle prepared statements by SQL text, least recently used first. */
  readonly #idle = new Map<string, StatementSync[]>();
  #closed = false;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** A cached prepared statement for a use that runs to completion before returning. */
  get(sql: string): StatementSync {
    const idle = this.#idle.get(sql);
    if (idle && idle.length > 0) {
      this.#idle.delete(sql); // re-insert: most recently used last
      this.#idle.set(sql, idle);
      return idle[0]!;
    }
    const stmt = this.#prepare(sql);
    this.checkin(sql, stmt);
    return stmt;
  }

  /**
   * A prepared statement for the caller alone, until it is checked in again: a statement steps
   * through one result at a time, so concurrent iterations of one query each need their own.
   */
  checkout(sql: string): StatementSync {
    return this.#idle.get(sql)?.pop() ?? this.#prepare(sql);
  }

  checkin(sql: string, stmt: StatementSync): void {
    if (this.#closed) return;
    let idle = this.#idle.get(sql);
    if (idle) this.#idle.delete(sql);
    else idle = [];
    if (idle.length < IDLE_PER_STATEMENT) idle.push(stmt);
    this.#idle.set(sql, idle);
    if (this.#idle.size > STATEMENT_CACHE_SIZE) {
      // Dropped statements are finalized when garbage-collected.
      this.#idle.delete(this.#idle.keys().next().value!);
    }
  }

  /**
   * Runs `sql`, a statement without rows and parameters (BEGIN, COMMIT): prepared once, where
   * DatabaseSync.exec() parses it at every call. A read transaction's BEGIN and COMMIT that way
   * took 5% of a first page's CPU in the server (bench/ab.ts), though a loop of them alone shows
   * no difference.
   */
  exec(sql: string): void {
    this.get(sql).run();
  }

  /** The first row of `sql`, as an array of values. */
  row(sql: string, params: readonly SQLInputValue[]): SQLOutputValue[] | undefined {
    return this.get(sql).get(...params) as SQLOutputValue[] | undefined;
  }

  /** Every row of `sql`, as arrays of values. */
  rows(sql: string, params: readonly SQLInputValue[]): SQLOutputValue[][] {
    return this.get(sql).all(...params) as unknown as SQLOutputValue[][];
  }

  close(): void {
    this.#closed = true;
    this.#idle.clear();
  }

  #prepare(sql: string): StatementSync {
    if (this.#closed) throw new Error('the store is closed');
    const stmt = this.#db.prepare(sql);
    stmt.setReturnArrays(true);
    return stmt;
  }
}
