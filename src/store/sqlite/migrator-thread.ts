// The migration thread (migrator.ts): migrates a table to a model on a connection of its own to
// the app's file, in one write transaction, and answers with the collection it made.

import { parentPort } from 'node:worker_threads';
import type { DatabaseSync } from 'node:sqlite';
import { SvcError } from '../../errors.ts';
import { assertModelCurrent } from '../store.ts';
import { openDatabase, retryWhileBusy } from './database.ts';
import { lockedTransaction } from './group-commit.ts';
import { MIGRATOR_NICE, type MigrateError, type MigrateReply, type MigrateRequest } from './migrator.ts';
import { migrate } from './schema.ts';
import { Statements } from './statements.ts';
import { lowerThreadPriority } from './thread-priority.ts';

lowerThreadPriority(MIGRATOR_NICE);

const port = parentPort!;

/**
 * Runs one migration. Its connection is opened for it and closed after: migrations are seldom,
 * and one of a file that waits for the lock (another process holds it) must not hold up another
 * migration of the same file on a connection they would share. Busy timeout 0: the lock is waited
 * for on timers (lockedTransaction), so that the thread migrates other files' tables meanwhile.
 */
async function run({ id, path, model }: MigrateRequest): Promise<MigrateReply> {
  let db: DatabaseSync | undefined;
  try {
    db = await retryWhileBusy(() => openDatabase(path, undefined, 0));
    const statements = new Statements(db);
    try {
      const connection = db;
      const collection = await lockedTransaction(connection, () => {
        // A request holds the model it read when it began: one whose file changed since may be older
        // than the model another request (or process) migrated the table to meanwhile. Migrated back,
        // the table would undo that change (a date-time made a date again loses its time), and the
        // newer model's description of it would be wrong for its requests. Checked under the lock:
        // a migration to a newer file takes it after this one.
        assertModelCurrent(model);
        return migrate(connection, statements, model);
      });
      return { id, collection };
    } finally {
      statements.close();
    }
  } catch (e) {
    return { id, error: migrateError(e) };
  } finally {
    db?.close();
  }
}

function migrateError(e: unknown): MigrateError {
  if (e instanceof SvcError && (e.code === 'model-changed' || e.code === 'store-unavailable' || e.code === 'store-full')) {
    return { message: String((e as { cause?: unknown }).cause ?? e.message), code: e.code };
  }
  const errcode = (e as { errcode?: unknown } | null)?.errcode;
  return { message: (e as Error)?.message ?? String(e), ...(typeof errcode === 'number' ? { errcode } : {}) };
}

port.on('message', (m: MigrateRequest) => {
  void run(m).then((reply) => port.postMessage(reply));
});
