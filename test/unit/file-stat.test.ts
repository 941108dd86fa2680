// The app's files as of this turn of the event loop: one stat per file per turn, and a change is
// seen from the next turn on (what "takes effect on the next request" rests on).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { statNow } from '../../src/model/file-stat.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-file-stat-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

t.test('a file written is seen from the next turn on; removed, it is gone from the next turn on', async (t) => {
  const file = join(dir, 'm.json');
  t.equal(statNow(file), undefined, 'nothing there');
  writeFileSync(file, '{}');
  t.equal(statNow(file), undefined, 'the same turn keeps what it saw');
  await nextTurn();
  const first = statNow(file);
  t.ok(first?.isFile && !first.isDirectory);
  writeFileSync(file, '{"fields":{}}');
  await nextTurn();
  t.not(statNow(file)?.key, first!.key, 'a change changes the key');
  rmSync(file);
  await nextTurn();
  t.equal(statNow(file), undefined);
});

t.test('a directory; a name too long for a file name is nothing, not an error', async (t) => {
  t.ok(statNow(dir)?.isDirectory);
  t.equal(statNow(join(dir, 'x'.repeat(5000))), undefined);
});
