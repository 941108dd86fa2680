// Opening a store from its URI (README "Configuration").

import type { Store } from './store.ts';

/** Opens the store of app `name` ('' in single-app mode; a tenant's name gets its own file or database). */
export async function openStore(uri: string, name: string): Promise<Store> {
  if (uri.startsWith('sqlite:')) {
    const { openSqliteStore } = await import('./sqlite/sqlite-store.ts');
    return openSqliteStore(uri, name);
  }
  if (uri.startsWith('mongodb://') || uri.startsWith('mongodb+srv://') || uri === 'mongodb-memory') {
    throw new Error(`store ${uri.split('@').pop()}: the MongoDB store is not part of this version yet; use sqlite:<path>`);
  }
  throw new Error(`unknown store URI "${uri}": use sqlite:<path>, sqlite::memory:, mongodb://… or mongodb-memory`);
}
