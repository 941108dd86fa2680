// Opening a store from its URI (README "Configuration"); each kind of store is loaded only when used.

import type { Store } from './store.ts';

/** Opens the store of app `name` ('' in single-app mode; a tenant's name gets its own file or database). */
export async function openStore(uri: string, name: string): Promise<Store> {
  if (uri.startsWith('sqlite:')) {
    const { openSqliteStore } = await import('./sqlite/sqlite-store.ts');
    return openSqliteStore(uri, name);
  }
  if (uri.startsWith('mongodb://') || uri.startsWith('mongodb+srv://') || uri === 'mongodb-memory') {
    const { openMongoStore } = await import('./mongodb/mongodb-store.ts');
    return openMongoStore(uri, name);
  }
  throw new Error(`unknown store URI "${uri.replace(/\/\/[^@/?]*@/, '//…@')}": use sqlite:<path>, sqlite::memory:, mongodb://…, mongodb+srv://… or mongodb-memory`);
}
