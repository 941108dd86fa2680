// The writer thread (writer.ts): owns a write connection to each app's database file and runs the
// writes the main thread sends, in group commits (group-commit.ts); each message is answered once
// its writes are committed.

import { parentPort } from 'node:worker_threads';
import { SvcError } from '../../errors.ts';
import { openWriter, retryWhileBusy } from './database.ts';
import { GroupCommit } from './group-commit.ts';
import { Statements } from './statements.ts';
import type { WriteError, WriteOp, WriterReply, WriterRequest } from './writer.ts';

interface Connection {
  readonly close: () => Promise<void>;
  readonly writes: GroupCommit;
}

/** By database path; opened on the first write (the main thread's connection made the file). */
const connections = new Map<string, Promise<Connection>>();
const port = parentPort!;

function connection(path: string): Promise<Connection> {
  let c = connections.get(path);
  if (!c) {
    // Busy timeout 0 (openWriter): SQLite's busy handler would sleep this thread, which writes
    // every app's files, while another process holds one's lock; its writes wait on timers (GroupCommit).
    c = retryWhileBusy(() => openWriter(path)).then((db) => {
      const statements = new Statements(db);
      const writes = new GroupCommit(db, statements);
      return {
        writes,
        close: async () => {
          await writes.close();
          statements.close();
          db.close();
        },
      };
    });
    // A failed open is tried again by the next write.
    c.catch(() => connections.delete(path));
    connections.set(path, c);
  }
  return c;
}

function writeError(e: unknown): WriteError {
  if (e instanceof SvcError && e.code === 'store-unavailable') {
    return { message: String((e as { cause?: unknown }).cause ?? e.message), unavailable: true };
  }
  if (e instanceof SvcError && e.code === 'store-full') return { message: String((e as { cause?: unknown }).cause ?? e.message), full: true };
  const errcode = (e as { errcode?: unknown } | null)?.errcode;
  return { message: (e as Error)?.message ?? String(e), ...(typeof errcode === 'number' ? { errcode } : {}) };
}

/** Runs `ops` on `path`'s connection; each may wait for another connection's write lock for `waitMs` from now. */
async function run(id: number, path: string, ops: readonly WriteOp[], waitMs: number): Promise<WriterReply> {
  const until = performance.now() + waitMs;
  let c: Connection;
  try {
    c = await connection(path);
  } catch (e) {
    const error = writeError(e);
    return { id, commit: 0, results: ops.map(() => ({ error })) };
  }
  // Run together, one after the other, in the open transaction: they share its commit.
  const settled = await Promise.allSettled(ops.map((op) => c.writes.run(op.sql, op.params, until)));
  // Settled as the commit acknowledged them, before any later commit: this is its number.
  return { id, commit: c.writes.commits, results: settled.map((s) => (s.status === 'fulfilled' ? s.value : { error: writeError(s.reason) })) };
}

port.on('message', (m: WriterRequest) => {
  switch (m.type) {
    case 'run':
      void run(m.id, m.path, m.ops, m.waitMs).then((reply) => port.postMessage(reply));
      return;
    case 'close': {
      const c = connections.get(m.path);
      connections.delete(m.path);
      void (c ?? Promise.resolve(undefined))
        .then((conn) => conn?.close())
        .catch(() => {})
        .finally(() => port.postMessage({ id: m.id, commit: 0, results: [] } satisfies WriterReply));
      return;
    }
  }
});
