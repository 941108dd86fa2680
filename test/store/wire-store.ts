// The MongoDB wire test server (test/mongo-wire) as store tests use it: a store on it, another
// process's store on the same database, and retries that wait on the driver, not on a clock.

import type { Test } from 'tap';
import { SvcError } from '../../src/errors.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/store.ts';
import { startMongoWireServer, type MongoWireServer } from '../mongo-wire/server.ts';

/** The wire server and a store on it (database `svc_<name>`), both ended with `t`. */
export async function wireStore(t: Test, name: string): Promise<{ wire: MongoWireServer; store: Store; other: () => Promise<Store> }> {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  const store = await openStore(wire.uri, name);
  t.teardown(() => store.close());
  return {
    wire,
    store,
    /** Another process on the same database: a client of its own. */
    other: async (): Promise<Store> => {
      const other = await openStore(`${wire.uri}?appName=other`, name);
      t.teardown(() => other.close());
      return other;
    },
  };
}

/** Runs `op` until the store serves it: each attempt ends within the driver's bound, so this waits on the driver, not on a clock. */
export async function untilServed<T>(op: () => Promise<T>, attempts = 40): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await op();
    } catch (e) {
      if (i >= attempts || !(e instanceof SvcError && e.code === 'store-unavailable')) throw e;
    }
  }
}
