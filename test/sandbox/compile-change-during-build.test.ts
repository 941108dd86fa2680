// A request that arrives after a handler's file changed must be served the changed handler (README
// "How it works": "a request that arrives after the change sees it"; SPEC §8: a change "takes
// effect on the next request"). A request that came while a build of the handler was in progress
// was given that build's result, read before the change: the old code.

import fs, { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Compiler } from '../../src/sandbox/compile.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-change-during-build-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, 'resources', 'lib'), { recursive: true });
const compiler = new Compiler(dir);

/** Resolves on the first statSync of a path that `match`es (the build has begun resolving the entry's imports). */
function statOf(match: (path: string) => boolean): Promise<void> {
  const real = fs.statSync;
  const writable = fs as { statSync: typeof real };
  return new Promise((resolve) => {
    writable.statSync = ((...args: Parameters<typeof real>) => {
      if (match(String(args[0]))) {
        writable.statSync = real;
        syncBuiltinESMExports();
        resolve();
      }
      return real(...args);
    }) as typeof real;
    syncBuiltinESMExports();
  });
}

t.test('a request after a change, while the old version is being built, gets the new version', async (t) => {
  // The entry is read first; its imports then keep the build busy for a while.
  let imports = '';
  for (let i = 0; i < 300; i++) {
    writeFileSync(join(dir, 'resources', 'lib', `m${i}.ts`), `export const v${i} = ${i};\n`);
    imports += `import './lib/m${i}.ts';\n`;
  }
  const file = join(dir, 'resources', 'notes.ts');
  writeFileSync(file, `${imports}echo('old');\n`);
  const resolving = statOf((path) => path.endsWith(join('lib', 'm0.ts')));
  const first = compiler.get(file); // request A: builds the old version
  await resolving; // the entry has been read
  writeFileSync(file, `${imports}echo('new');\n`);
  // Request B arrives after the change, in a later turn (file-stat.ts).
  await new Promise((resolve) => setImmediate(resolve));
  const second = await compiler.get(file);
  const old = await first;
  t.ok(old.ok && old.code.includes('"old"'), 'A, before the change: the old version');
  t.ok(second.ok && second.code.includes('"new"'), 'B, after the change: the new version');
});
