// Reader threads: the queries that may scan a whole table (sql.ts `scans`) run here, off the event
// loop, so that one app's heavy filter never stalls another app's requests (README "Limits").

import { EventEmitter } from 'node:events';
import type { SQLInputValue, SQLOutputValue } from 'node:sqlite';
import { storeTimeLimit, storeUnavailable } from '../store.ts';
import { ThreadPort } from './thread-port.ts';

/** Reader threads of the process, shared by every app's file store. Default 2. */
export const READER_THREADS = 2;
/**
 * Reads of one app (one database file) stepping at once in the reader threads: fewer than
 * READER_THREADS, so one app can never occupy every thread; its other reads wait their turn. A turn
 * is one batch: a read waiting for its consumer to take the rows of the last holds none, or one
 * client reading slowly (or not at all, until --request-timeout) would hold up every other scan of
 * the app, however long. Default 1.
 */
export const READS_PER_APP = 1;

/**
 * The reader threads' nice value (0 is the event loop's): on a busy machine a scan gets the CPU
 * the requests that need little of it leave, instead of an equal share of a core.
 * https://man7.org/linux/man-pages/man2/setpriority.2.html
 */
export const READER_NICE = 10;

export type Request =
  | { type: 'open'; id: number; path: string; sql: string; params: SQLInputValue[]; timeMs: number }
  | { type: 'more'; id: number }
  | { type: 'stop'; id: number }
  | { type: 'close'; path: string };

export type Reply =
  | { id: number; running: true }
  | { id: number; rows: SQLOutputValue[][]; done: boolean }
  | { id: number; error: 'time' | 'busy' | string; errcode?: number };

/**
 * `running` (database path) when a reader thread starts stepping a query, `finished` (path)
 * when it is done with it, whatever the outcome: what tests and operators can watch.
 */
export const readerEvents = new EventEmitter<{ running: [string]; finished: [string] }>();

/** A reader thread: its port, and the reads in progress on it. */
class Thread {
  readonly port = new ThreadPort<Request & { id: number }, Reply, string>(
    new URL('./reader-thread.ts', import.meta.url),
    'reader thread',
    storeUnavailable,
    (r, path) => {
      if (!('running' in r)) return false;
      readerEvents.emit('running', path);
      return true;
    },
  );
  /** Reads in progress on this thread. */
  load = 0;

  get dead(): boolean {
    return this.port.dead;
  }
}

class Readers {
  #threads: Thread[] = [];
  #seq = 0;
  /** Per database path: reads in progress, and those waiting for one to end. */
  readonly #apps = new Map<string, { active: number; queue: (() => void)[] }>();

  /**
   * The rows of `sql`, read by a reader thread with at most `timeMs` of store time; over it, the
   * problem names `limitMs`, the read's whole allowance (it may have spent some before).
   */
  async *rows(path: string, sql: string, params: SQLInputValue[], timeMs: number, limitMs = timeMs): AsyncGenerator<SQLOutputValue[]> {
    await this.#acquire(path);
    const thread = this.#pick();
    thread.load++;
    const id = ++this.#seq;
    let done = false;
    let turn = true;
    try {
      let reply = await thread.port.send({ type: 'open', id, path, sql, params, timeMs }, path);
      for (;;) {
        this.#release(path);
        turn = false;
        if ('error' in reply) {
          done = true;
          if (reply.error === 'time') throw storeTimeLimit(limitMs);
          if (reply.error === 'busy') throw storeUnavailable(new Error('the database is locked'));
          // SQLite's result code, as an error of the event loop's connection carries it (sqlite-store.ts #failure reads it).
          throw Object.assign(new Error(`reader thread: ${reply.error}`), reply.errcode === undefined ? {} : { errcode: reply.errcode });
        }
        if (!('rows' in reply)) throw new Error('reader thread: unexpected reply');
        done = reply.done;
        for (const row of reply.rows) yield row;
        if (done) return;
        await this.#acquire(path);
        turn = true;
        reply = await thread.port.send({ type: 'more', id }, path);
      }
    } finally {
      // Also when the consumer stops early: the thread resets the statement.
      if (!done) thread.port.post({ type: 'stop', id } satisfies Request);
      thread.load--;
      if (turn) this.#release(path);
      readerEvents.emit('finished', path);
    }
  }

  /**
   * Stores open on each database path. A tenant whose directory was removed and put back while a
   * request held it has two stores of one file for a while (tenants.ts): the threads' connections
   * to it, and the reads on them, belong to both.
   */
  readonly #stores = new Map<string, number>();

  /** A store of `path` opened: the threads' connections to it stay until every such store is closed. */
  open(path: string): void {
    this.#stores.set(path, (this.#stores.get(path) ?? 0) + 1);
  }

  /** A store of `path` is closing: the last one closes every thread's connection to it (and the reads on them). */
  close(path: string): void {
    const n = (this.#stores.get(path) ?? 1) - 1;
    if (n > 0) {
      this.#stores.set(path, n);
      return;
    }
    this.#stores.delete(path);
    for (const t of this.#threads) t.port.post({ type: 'close', path } satisfies Request);
  }

  #pick(): Thread {
    this.#threads = this.#threads.filter((t) => !t.dead);
    if (this.#threads.length < READER_THREADS) {
      const t = new Thread();
      this.#threads.push(t);
      return t;
    }
    return this.#threads.reduce((a, b) => (b.load < a.load ? b : a));
  }

  async #acquire(path: string): Promise<void> {
    let app = this.#apps.get(path);
    if (!app) this.#apps.set(path, (app = { active: 0, queue: [] }));
    if (app.active < READS_PER_APP) {
      app.active++;
      return;
    }
    await new Promise<void>((resolve) => app.queue.push(resolve));
  }

  #release(path: string): void {
    const app = this.#apps.get(path)!;
    const next = app.queue.shift();
    if (next) return next(); // the slot passes on
    app.active--;
    if (app.active === 0) this.#apps.delete(path);
  }
}

/** The process's reader threads, started on first use. */
export const readers = new Readers();
