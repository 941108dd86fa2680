// One store test run on each store that answers here: SQLite on a file (and, when asked, in
// memory) and MongoDB through the wire test server (test/mongo-wire/server.ts), each a subtest.

import { join } from 'node:path';
import type { Test } from 'tap';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/store.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';

/** `run` on a fresh store of each kind, as subtests of `t` titled `<title>SQLite file` and so on; the store is closed after. */
export function eachStore(t: Test, run: (t: Test, store: Store) => Promise<void>, { title = '', memory = false }: { title?: string; memory?: boolean } = {}): void {
  t.test(`${title}SQLite file`, async (t) => {
    const store = await openStore(`sqlite:${join(t.testdir(), 'store.sqlite')}`, '');
    t.teardown(() => store.close());
    await run(t, store);
  });
  if (memory) {
    t.test(`${title}SQLite in memory`, async (t) => {
      const store = await openStore('sqlite::memory:', '');
      t.teardown(() => store.close());
      await run(t, store);
    });
  }
  t.test(`${title}MongoDB (the wire test server)`, async (t) => {
    const wire = await startMongoWireServer();
    t.teardown(() => wire.stop());
    const store = await openStore(wire.uri, 'store');
    t.teardown(() => store.close());
    await run(t, store);
  });
}
