// The reader threads (src/store/sqlite/readers.ts) run at a lower priority than the event loop,
// so that a tenant's heavy scans take the CPU the other requests leave (bench/noisy-neighbour.ts).
// Its own file: no reader thread runs in this process before the test starts one.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { READER_NICE, readers } from '../../src/store/sqlite/readers.ts';

/** Every thread of this process: id and nice value (proc(5): the 19th field of stat). */
function threads(): { tid: number; nice: number }[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return { tid: Number(tid), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
  });
}

t.test('a reader thread runs at nice READER_NICE, the event loop at 0 (Linux)', async (t) => {
  if (!existsSync('/proc/self/task')) {
    t.comment('skipped: no /proc/self/task (not Linux)');
    return;
  }
  t.ok(READER_NICE > 0, `READER_NICE is a lower priority (${READER_NICE})`);
  const path = join(t.testdir(), 'r.sqlite');
  const db = openDatabase(path);
  t.teardown(() => db.close());
  t.same(threads().filter((th) => th.nice !== 0), [], 'before: every thread at nice 0');
  for await (const row of readers.rows(path, 'SELECT 1', [], 1000)) t.same(row, [1]);
  const niced = threads().filter((th) => th.nice !== 0);
  t.equal(niced.length, 1, 'after one read: one thread, the reader, is niced');
  t.equal(niced[0]?.nice, READER_NICE);
  t.equal(threads().find((th) => th.tid === process.pid)?.nice, 0, 'the event loop keeps nice 0');
});
