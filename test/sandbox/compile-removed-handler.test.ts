// A request is served only while its handler file exists; when the file goes while the request is
// in flight (its tenant directory removed), the request finishes with the handler it was admitted
// for (README "Tenants": requests in flight finish first). It was answered 500
// handler-compile-error ("Cannot read the handler"): the compiler saw the file changed and built
// it again. A handler never built before has nothing to finish with.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Compiler } from '../../src/sandbox/compile.ts';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

t.test('a built handler whose file is gone is the one built; one never built is an error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-removed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'resources'));
  const built = join(dir, 'resources', 'notes.ts');
  const never = join(dir, 'resources', 'other.ts');
  writeFileSync(built, 'export function onList() { echo("notes"); }\n');
  writeFileSync(never, 'export function onList() { echo("other"); }\n');
  const compiler = new Compiler(dir);
  const first = await compiler.get(built);
  t.ok(first.ok, 'built');
  rmSync(built);
  rmSync(never);
  await nextTurn(); // file states are read once a turn (model/file-stat.ts)
  t.equal(await compiler.get(built), first, 'the file gone: the artifact it was built as');
  t.notOk((await compiler.get(never)).ok, 'never built: a compile error');
  // A file that comes back is built again from what it holds now.
  writeFileSync(built, 'export function onList() { echo("changed"); }\n');
  await nextTurn(); // file states are read once a turn (model/file-stat.ts)
  const again = await compiler.get(built);
  t.ok(again.ok);
  t.not(again, first, 'built again');
});
