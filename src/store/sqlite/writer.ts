// The writer thread: the writes of every app's database file run and commit here, so the event
// loop never waits for a commit's fsync, nor for another process's write lock (README "Storage").

import { EventEmitter } from 'node:events';
import type { SQLInputValue } from 'node:sqlite';
import { SvcError } from '../../errors.ts';
import { storeFull, storeUnavailable } from '../store.ts';
import { BUSY_TIMEOUT_MS } from './database.ts';
import type { RunResult, Writes } from './group-commit.ts';
import { ThreadPort } from './thread-port.ts';

export interface WriteOp {
  readonly sql: string;
  readonly params: readonly SQLInputValue[];
}

/**
 * `waitMs`: how long the writes of a 'run' may still wait for another connection's write lock, ms
 * (BUSY_TIMEOUT_MS from when the first of them was issued); then they fail as store-unavailable.
 */
type Message = { type: 'run'; path: string; ops: WriteOp[]; waitMs: number } | { type: 'close'; path: string };
export type WriterRequest = Message & { id: number };

/** A write's failure, as the thread saw it: SQLite's message and result code, or the store was unavailable, or full. */
export interface WriteError {
  readonly message: string;
  readonly errcode?: number;
  readonly unavailable?: boolean;
  readonly full?: boolean;
}

/** Per op of the request, in order: what it did, or why it failed; and the number of the commit that acknowledged them (per connection). */
export type WriterReply = { id: number; commit: number; results: (RunResult | { error: WriteError })[] };

/**
 * Writes go to the thread at the end of the event loop's turn, or sooner, in messages of this
 * many: the thread then runs the first writes of a busy turn while the event loop still handles
 * the rest, instead of all requests waiting for the whole turn and then for the whole batch.
 * Measured (bench/ab.ts, durable create, 32 connections): 4 was 1.18× as fast as one message
 * per turn, and 2 or 8 the same as 4.
 */
const WRITES_PER_MESSAGE = 4;

/**
 * `commit` (database path, number of the commit, writes it acknowledged) each time the writer
 * thread acknowledges writes of a message: what tests can watch.
 */
export const writerEvents = new EventEmitter<{ commit: [string, number, number] }>();

let threads = 0;

/** The writer thread: its port, and its serial number in the process (1, 2, …). */
class Thread {
  readonly port = new ThreadPort<WriterRequest, WriterReply>(new URL('./writer-thread.ts', import.meta.url), 'writer thread', outcomeUnknown);
  readonly serial = ++threads;

  get dead(): boolean {
    return this.port.dead;
  }
}

let thread: Thread | undefined;
let seq = 0;
/** Stores that sent writes to the thread and are not closed: at 0, the thread ends. */
let users = 0;

/** The serial number of the writer thread running now, if one is (for tests). */
export function writerThread(): number | undefined {
  return thread && !thread.dead ? thread.serial : undefined;
}

/** The process's writer thread, started on first use (again after it died). */
function send(m: Message): Promise<WriterReply> {
  if (!thread || thread.dead) thread = new Thread();
  return thread.port.send({ ...m, id: ++seq }, undefined);
}

/**
 * The writes of one database file, run by the writer thread on its own connection: those issued
 * in one turn of the event loop go in one message, and the thread runs every write that reaches
 * it in the open transaction and acknowledges them when it commits (group commit, group-commit.ts).
 * The reading connection never holds an uncommitted write, so `commit` has nothing to do.
 */
export class ThreadWrites implements Writes {
  readonly #path: string;
  #queue: { op: WriteOp; resolve: (r: RunResult) => void; reject: (e: unknown) => void }[] = [];
  /** When the first write of #queue was issued (performance.now(), ms). */
  #queuedAt = 0;
  /** Sent and not yet acknowledged. */
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;
  /** Whether this store counts among the thread's users. */
  #using = false;
  /** Migrations of the file's tables under way (`hold`): while there are any, writes are queued, not sent. */
  #held = 0;
  /** Settled when #held falls to 0. */
  #released: PromiseWithResolvers<void> | undefined;
  /** When #held last fell to 0 (performance.now(), ms): writes held till then wait for the lock from then. */
  #releasedAt = -Infinity;

  constructor(path: string) {
    this.#path = path;
  }

  run(sql: string, params: readonly SQLInputValue[]): Promise<RunResult> {
    if (this.#closed) return Promise.reject(new Error('the store is closed'));
    return new Promise((resolve, reject) => {
      if (this.#queue.length === 0) {
        this.#queuedAt = performance.now();
        setImmediate(() => this.#flush());
      }
      this.#queue.push({ op: { sql, params }, resolve, reject });
      if (this.#queue.length >= WRITES_PER_MESSAGE) this.#flush();
    });
  }

  commit(): void {}

  /** Also waits for the migrations under way (`hold`), and then for the writes they held. */
  async settle(): Promise<void> {
    while (this.#held > 0) await this.#released!.promise;
    this.#flush();
    await Promise.allSettled(this.#inFlight);
  }

  /**
   * `migration` (of a table of this file, in the migration thread, which holds the file's write
   * lock meanwhile), with the writes issued while it runs queued here: they go to the writer thread
   * once it ended, each with its whole wait for the lock from then, instead of waiting for the lock
   * in the writer thread, where one past BUSY_TIMEOUT_MS would fail (503) however soon the
   * migration ends. Writes to the migrating collection wait for it anyway (sqlite-store.ts #writable).
   */
  async hold<T>(migration: () => Promise<T>): Promise<T> {
    if (this.#held++ === 0) this.#released = Promise.withResolvers();
    try {
      return await migration();
    } finally {
      if (--this.#held === 0) {
        this.#releasedAt = performance.now();
        this.#released!.resolve();
        this.#released = undefined;
        this.#flush();
      }
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.settle();
    if (!this.#using) return;
    if (thread && !thread.dead) await send({ type: 'close', path: this.#path }).catch(() => {});
    // Idle tenants close their stores (--tenant-idle): the last one ends the thread.
    if (--users === 0) thread?.port.end();
  }

  #flush(): void {
    const queue = this.#queue;
    if (queue.length === 0 || this.#held > 0) return;
    this.#queue = [];
    if (!this.#using) {
      this.#using = true;
      users++;
    }
    const waitMs = BUSY_TIMEOUT_MS - (performance.now() - Math.max(this.#queuedAt, this.#releasedAt));
    const sent = send({ type: 'run', path: this.#path, ops: queue.map((w) => w.op), waitMs }).then(
      ({ commit, results }) => {
        writerEvents.emit('commit', this.#path, commit, results.filter((r) => !('error' in r)).length);
        results.forEach((r, i) => ('error' in r ? queue[i]!.reject(writeError(r.error)) : queue[i]!.resolve(r)));
      },
      (e: unknown) => {
        for (const w of queue) w.reject(e);
      },
    );
    this.#inFlight.add(sent);
    void sent.finally(() => this.#inFlight.delete(sent));
  }
}

/**
 * A thread that ended with writes unanswered may have committed some: a retry could store one
 * twice, so this is not the retryable store-unavailable.
 */
function outcomeUnknown(cause: unknown): SvcError {
  const err = new SvcError('internal-error', 'The writer thread stopped before acknowledging this write, which may or may not have been stored: read before writing it again.');
  Object.defineProperty(err, 'cause', { value: cause, enumerable: false });
  return err;
}

/** The error a write failed with in the writer thread, as this thread's callers know it. */
function writeError(e: WriteError): Error {
  if (e.unavailable) return storeUnavailable(new Error(e.message));
  if (e.full) return storeFull(new Error(e.message));
  return Object.assign(new Error(e.message), e.errcode === undefined ? {} : { errcode: e.errcode });
}
