// The migration thread: a table that a model change (or a new model) needs changed is migrated
// there (schema.ts `migrate`), on a connection of its own to the app's file, so that the event
// loop every app shares only awaits it (README "Models").

import type { Model } from '../../model/types.ts';
import { modelChanged, storeFull, storeUnavailable } from '../store.ts';
import type { Collection } from './schema.ts';
import { ThreadPort } from './thread-port.ts';

export interface MigrateRequest {
  readonly id: number;
  /** The database file. */
  readonly path: string;
  readonly model: Model;
}

/** Why a migration failed, as the thread saw it: a problem's code, or SQLite's message and result code. */
export interface MigrateError {
  readonly message: string;
  readonly code?: 'model-changed' | 'store-unavailable' | 'store-full';
  readonly errcode?: number;
}

export type MigrateReply = { id: number; collection: Collection } | { id: number; error: MigrateError };

/**
 * The migration thread's nice value (as the reader threads', readers.ts): on a busy machine a
 * migration gets the CPU the requests leave. Its table's requests wait for it meanwhile.
 */
export const MIGRATOR_NICE = 10;

/**
 * The thread ends after this long without a migration, ms: it is needed when a model changes or a
 * collection is new, seldom; a burst of them (an app's deploy, new tenants) shares one start.
 */
const IDLE_MS = 30_000;

let thread: ThreadPort<MigrateRequest, MigrateReply> | undefined;
let seq = 0;
let running = 0;
let idle: NodeJS.Timeout | undefined;

/**
 * The table of `model` in database file `path` made to hold its fields, in the migration thread:
 * in a write transaction of its own connection, whose lock it waits for on timers (as
 * lockedTransaction, up to BUSY_TIMEOUT_MS, then store-unavailable); model-changed when `model`'s
 * file no longer holds it once the lock is taken. The migrations of several files run one after
 * another, each in one piece.
 */
export async function migrateInThread(path: string, model: Model): Promise<Collection> {
  if (!thread || thread.dead) thread = new ThreadPort(new URL('./migrator-thread.ts', import.meta.url), 'migration thread', storeUnavailable);
  clearTimeout(idle);
  running++;
  try {
    const reply = await thread.send({ id: ++seq, path, model }, undefined);
    if ('error' in reply) throw migrateError(reply.error, model);
    return reply.collection;
  } finally {
    if (--running === 0) {
      const ending = thread;
      idle = setTimeout(() => ending.end(), IDLE_MS).unref();
    }
  }
}

/** The error a migration failed with in the thread, as its callers know it. */
function migrateError(e: MigrateError, model: Model): Error {
  if (e.code === 'model-changed') return modelChanged(model.name);
  if (e.code === 'store-unavailable') return storeUnavailable(new Error(e.message));
  if (e.code === 'store-full') return storeFull(new Error(e.message));
  return Object.assign(new Error(e.message), e.errcode === undefined ? {} : { errcode: e.errcode });
}
