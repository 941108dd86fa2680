// The time bound SQLite enforces on a query: node:sqlite (24.9) has no progress handler or
// interrupt, so a query's scan calls a function of ours that throws once its time is up.

import type { DatabaseSync } from 'node:sqlite';
import { LOWER_FUNCTION, lowerCase } from './sql.ts';

/** The SQL function a scan calls (see `checkSql` in sql.ts); it throws past the deadline. */
export const DEADLINE_FUNCTION = 'svc_deadline';

/** What DEADLINE_FUNCTION throws: the statement stops, and the store turns it into `store-time-limit`. */
export class TimeUp extends Error {
  constructor() {
    super('svc: the query ran out of store time');
  }
}

/**
 * The deadline of the one statement a connection is stepping (a connection steps one at a time,
 * so one clock per connection is enough). Outside `run`, there is none.
 */
export class Deadline {
  #until = Infinity;

  readonly check = (): number => {
    if (performance.now() > this.#until) throw new TimeUp();
    return 1;
  };

  /** Runs `step` (synchronous SQLite work) with at most `ms` milliseconds of time. */
  run<T>(ms: number, step: () => T): T {
    this.#until = performance.now() + ms;
    try {
      return step();
    } finally {
      this.#until = Infinity;
    }
  }
}

/**
 * The store time left to one read across its steps (a streamed list is stepped a batch or a
 * member at a time, with waits for its consumer between them that do not count).
 */
export class Allowance {
  readonly timeMs: number;
  #left: number;

  constructor(timeMs: number) {
    this.timeMs = timeMs;
    this.#left = timeMs;
  }

  /** Milliseconds left. */
  get left(): number {
    return Math.max(0, this.#left);
  }

  /** Runs `step` with the time left (at most `slice` of it), and counts the time it took. */
  step<T>(deadline: Deadline, step: () => T, slice = Infinity): T {
    const started = performance.now();
    try {
      return deadline.run(Math.min(this.#left, slice), step);
    } finally {
      this.#left -= performance.now() - started;
    }
  }
}

/**
 * Installs the functions queries call on `db`: DEADLINE_FUNCTION, and LOWER_FUNCTION, which checks
 * the deadline too (after each value, because lower-casing a member of megabytes is where a
 * case-insensitive scan spends its time).
 */
export function installFunctions(db: DatabaseSync, deadline: Deadline): void {
  // Not deterministic: SQLite must call it for each row, never factor it out of the loop.
  db.function(DEADLINE_FUNCTION, { deterministic: false, directOnly: true }, deadline.check);
  db.function(LOWER_FUNCTION, { deterministic: true, directOnly: true }, (v) => {
    const lowered = lowerCase(v);
    deadline.check();
    return lowered;
  });
}

/** Whether `e` is the stop of a statement whose time was up (TimeUp, as node:sqlite rethrows it). */
export function isTimeUp(e: unknown): boolean {
  return e instanceof TimeUp || (e instanceof Error && e.message === 'svc: the query ran out of store time');
}
