// Keeping the SQLite writer thread running across the subtests of a file.
//
// The writes of every file store of a process go through one writer thread, started on the first
// write and ended when the last store that wrote is closed (src/store/sqlite/writer.ts). A file
// whose subtests each open and close their own file store would start a thread for each of them
// (a Worker that loads its modules: about 150 ms on a quiet machine, several times that on a busy
// one). With this store open, every store of the file shares one thread, as the tenants of a
// server do. Tests of the thread's own start and end (test/store/sqlite.test.ts) run without it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { makeModel } from '../fixtures/models.ts';

/** Opens a file store of its own and writes to it, so that the writer thread runs; `close` ends that (and removes the file). */
export async function keepWriterThread(): Promise<{ close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-writer-'));
  const store = await openSqliteStore(`sqlite:${join(dir, 'keep.sqlite')}`, '');
  await store.insert(makeModel('keep', { n: 'integer' }), { n: 1 }, new Date().toISOString());
  let closed = false;
  return {
    close: async () => {
      if (closed) return;
      closed = true;
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
