// A reader thread (readers.ts): runs the queries that scan, each on a connection of its own, and
// sends their rows back in batches, one batch per request of the main thread.

import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from 'node:sqlite';
import { parentPort } from 'node:worker_threads';
import { Allowance, Deadline, isTimeUp } from './deadline.ts';
import { isBusy, openReader } from './database.ts';
import { READER_NICE, type Reply, type Request } from './readers.ts';
import { Statements } from './statements.ts';
import { lowerThreadPriority } from './thread-priority.ts';

lowerThreadPriority(READER_NICE);

/** A batch ends after this many rows, or once its values hold this many characters/bytes, whichever comes first. */
const BATCH_ROWS = 256;
const BATCH_SIZE = 1024 * 1024;

interface Connection {
  readonly path: string;
  readonly db: DatabaseSync;
  readonly deadline: Deadline;
  /** Prepared statements by SQL text, reused (preparing one costs as much as a small query). */
  readonly statements: Statements;
}

interface Read {
  readonly connection: Connection;
  readonly sql: string;
  readonly statement: StatementSync;
  readonly rows: Iterator<SQLOutputValue[]>;
  readonly allowance: Allowance;
}

/** Idle connections kept per database path, with their prepared statements, for the next reads. */
const IDLE_PER_PATH = 2;

/** Idle connections by database path. */
const idle = new Map<string, Connection[]>();
const reads = new Map<number, Read>();
const port = parentPort!;

/**
 * A connection for one read, until it stops: the reads of one file in progress at once (one
 * stepped, the others waiting for their consumers, readers.ts) each see the snapshot of their own
 * first step. Statements of one connection share its read transaction, so a read begun beside
 * another on its connection would see that one's older snapshot, not every write acknowledged
 * before it began.
 */
function connection(path: string): Connection {
  const c = idle.get(path)?.pop();
  if (c) return c;
  // The main thread's connection made the file (WAL, schema); this one only reads it.
  const deadline = new Deadline();
  const db = openReader(path, deadline);
  return { path, db, deadline, statements: new Statements(db) };
}

/** `c`, done with its read: kept for the next, or closed. */
function release(c: Connection): void {
  let kept = idle.get(c.path);
  if (!kept) idle.set(c.path, (kept = []));
  if (kept.length < IDLE_PER_PATH) kept.push(c);
  else closeConnection(c);
}

function closeConnection(c: Connection): void {
  c.statements.close();
  c.db.close();
}

function size(row: SQLOutputValue[]): number {
  let n = 0;
  for (const v of row) n += typeof v === 'string' ? v.length : v instanceof Uint8Array ? v.byteLength : 8;
  return n;
}

/** The next batch of read `id`, or the reason it stopped. */
function batch(id: number, read: Read): Reply {
  const rows: SQLOutputValue[][] = [];
  let bytes = 0;
  try {
    const done = read.allowance.step(read.connection.deadline, () => {
      while (rows.length < BATCH_ROWS && bytes < BATCH_SIZE) {
        const r = read.rows.next();
        if (r.done) return true;
        rows.push(r.value);
        bytes += size(r.value);
      }
      return false;
    });
    if (done) stop(id);
    return { id, rows, done };
  } catch (e) {
    stop(id);
    if (isTimeUp(e)) return { id, error: 'time' };
    if (isBusy(e)) return { id, error: 'busy' };
    return failed(id, e);
  }
}

/** The reply of a read that failed with `e`: its message, and SQLite's result code when it has one. */
function failed(id: number, e: unknown): Reply {
  const errcode = (e as { errcode?: unknown } | null)?.errcode;
  return { id, error: (e as Error)?.message ?? String(e), ...(typeof errcode === 'number' ? { errcode } : {}) };
}

function stop(id: number): void {
  const read = reads.get(id);
  if (!read) return;
  reads.delete(id);
  // Resets the statement, ending its read transaction; then it and its connection can serve the next read.
  read.rows.return?.();
  read.connection.statements.checkin(read.sql, read.statement);
  release(read.connection);
}

port.on('message', (m: Request) => {
  switch (m.type) {
    case 'open': {
      let read: Read;
      let c: Connection | undefined;
      try {
        c = connection(m.path);
        const statement = c.statements.checkout(m.sql);
        const rows = statement.iterate(...(m.params as SQLInputValue[])) as Iterator<SQLOutputValue[]>;
        read = { connection: c, sql: m.sql, statement, rows, allowance: new Allowance(m.timeMs) };
      } catch (e) {
        if (c) release(c);
        port.postMessage((isBusy(e) ? { id: m.id, error: 'busy' } : failed(m.id, e)) satisfies Reply);
        return;
      }
      reads.set(m.id, read);
      port.postMessage({ id: m.id, running: true } satisfies Reply);
      port.postMessage(batch(m.id, read));
      return;
    }
    case 'more': {
      // A read the main thread asks more of is one this thread stopped: its file's last store
      // closed ('close'). Answered as done, the list would end short as if whole.
      const read = reads.get(m.id);
      port.postMessage(read ? batch(m.id, read) : ({ id: m.id, error: 'the read was stopped: its database file was closed' } satisfies Reply));
      return;
    }
    case 'stop':
      stop(m.id);
      return;
    case 'close': {
      for (const [id, read] of reads) if (read.connection.path === m.path) stop(id);
      for (const c of idle.get(m.path) ?? []) closeConnection(c);
      idle.delete(m.path);
      return;
    }
  }
});
