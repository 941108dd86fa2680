// Opening a store from its URI (README "Configuration"); each kind of store is loaded only when used.

import { redact } from './redact.ts';
import type { Store } from './store.ts';

export interface OpenOptions {
  /**
   * Do not wait for a MongoDB server at opening (default false: a server that cannot be reached
   * is an error now). The store then connects on first use; `ping()` tells when it can answer.
   */
  readonly lazy?: boolean;
  /**
   * MiB of database pages the SQLite stores open at once may keep in memory between them, at most
   * 256 (sqlite/database.ts sharePageCache; also the default).
   */
  readonly pageCacheMiB?: number;
}

/** The page cache budget of a process whose --max-rss is `maxRssMiB` (0: none): an eighth of it. */
export function pageCacheMiB(maxRssMiB: number): number | undefined {
  return maxRssMiB > 0 ? maxRssMiB / 8 : undefined;
}

/** Opens the store of app `name` ('' in single-app mode; a tenant's name gets its own file or database). */
export async function openStore(uri: string, name: string, options: OpenOptions = {}): Promise<Store> {
  if (uri.startsWith('sqlite:')) {
    const { openSqliteStore } = await import('./sqlite/sqlite-store.ts');
    return openSqliteStore(uri, name, options.pageCacheMiB);
  }
  if (uri.startsWith('mongodb://') || uri.startsWith('mongodb+srv://') || uri === 'mongodb-memory') {
    const { openMongoStore } = await import('./mongodb/mongodb-store.ts');
    return openMongoStore(uri, name, options);
  }
  throw new Error(`unknown store URI "${redact(uri)}": use sqlite:<path>, sqlite::memory:, mongodb://…, mongodb+srv://… or mongodb-memory`);
}

/**
 * Whether a store URI keeps its data only while its store is open (`sqlite::memory:`,
 * `mongodb-memory`): such a store is never closed to save memory, or its data would be gone.
 */
export function isVolatile(uri: string): boolean {
  return uri === 'sqlite::memory:' || uri === 'mongodb-memory';
}
