// Opening a store from its URI (SPEC §2).

import type { Store } from './store.ts';

export async function openStore(uri: string, name: string): Promise<Store> {
  if (uri.startsWith('sqlite:')) {
    const { openSqliteStore } = await import('./sqlite.ts');
    return openSqliteStore(uri, name);
  }
  if (uri.startsWith('mongodb://') || uri.startsWith('mongodb+srv://') || uri === 'mongodb-memory') {
    throw new Error(`store ${uri.split('@').pop()}: the MongoDB store is not part of this version yet; use sqlite:<path>`);
  }
  throw new Error(`unknown store URI "${uri}": use sqlite:<path>, sqlite::memory:, mongodb://… or mongodb-memory`);
}

/** The store URI of one tenant: an SQLite file per tenant beside the configured one. */
export function tenantStoreUri(uri: string, tenant: string): string {
  if (uri === 'sqlite::memory:' || !uri.startsWith('sqlite:')) return uri;
  const path = uri.slice('sqlite:'.length);
  const dot = path.lastIndexOf('.');
  const slash = path.lastIndexOf('/');
  return dot > slash ? `sqlite:${path.slice(0, dot)}.${tenant}${path.slice(dot)}` : `sqlite:${path}.${tenant}`;
}
