// Attack: a tenant swaps one of its files for a named pipe (FIFO) between the server's check of it
// and its read. A model file was found by stat (a file), then opened and read whole: a FIFO put
// there in between made the open wait for a writer, on the event loop, and the whole process with
// it. So did an import of a handler, found by stat when resolved and opened when loaded. Every file
// of an app is now opened without waiting and read only when the open finds a regular file.
//
// The swap is made at the one moment that matters, deterministically: the file is replaced right
// after the reader resolves its real path, the last step before the open, by wrapping
// fs.realpathSync (syncBuiltinESMExports makes `import { realpathSync } from 'node:fs'` see it).
// Each read runs in a process of its own, so that the test can tell one that stopped.

import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE } from '../helpers/process.ts';
import { makeApp, ROOT } from '../helpers/server.ts';

if (process.platform === 'win32') {
  t.pass('skipped: no mkfifo on Windows');
  process.exit(0);
}

const scratch = mkdtempSync(join(tmpdir(), 'svc-fifo-swap-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

/** Replaces `target` with a FIFO the first time fs.realpathSync has resolved it. */
const SWAP = `
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
export function swapForFifoWhenResolved(target) {
  const realpathSync = fs.realpathSync;
  fs.realpathSync = (path, ...rest) => {
    const real = realpathSync(path, ...rest);
    if (path === target) {
      fs.realpathSync = realpathSync;
      syncBuiltinESMExports();
      fs.unlinkSync(target);
      execFileSync('mkfifo', [target]);
    }
    return real;
  };
  syncBuiltinESMExports();
}
`;
writeFileSync(join(scratch, 'swap.mjs'), SWAP);

/** Runs `script` (an ES module) in a process of its own: what it printed, or a failure when it does not end. */
function run(t: Test, script: string): Promise<string> {
  const file = join(scratch, `${t.name.replace(/\W+/g, '-')}.mjs`);
  writeFileSync(file, script);
  const child = spawn(NODE, [file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  return new Promise((resolve, reject) => {
    // Only a process stuck in open(2) gets here: one that reads as it should ends in a second or
    // two. Both tests' waits together stay under tap's 120 s, so that no child outlives the test.
    const stuck = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the read did not end: the process waits on the FIFO'));
    }, 30_000);
    child.on('exit', () => {
      clearTimeout(stuck);
      resolve(out.trim());
    });
  });
}

t.test('a model file swapped for a FIFO before its read is model-invalid, and the process goes on', async (t) => {
  const app = makeApp({ models: { notes: { fields: { text: { type: 'string' } } } } });
  t.teardown(() => app.cleanup());
  const out = await run(
    t,
    `import { swapForFifoWhenResolved } from ${JSON.stringify(join(scratch, 'swap.mjs'))};
import { ModelRegistry } from ${JSON.stringify(join(ROOT, 'src/model/registry.ts'))};
const models = ${JSON.stringify(join(app.dir, 'models'))};
swapForFifoWhenResolved(models + '/notes.json');
try {
  new ModelRegistry(models, () => {}).get('notes');
  console.log('served');
} catch (e) {
  console.log(JSON.stringify({ code: e.code, message: e.message }));
}
`,
  );
  t.match(JSON.parse(out), { code: 'model-invalid', message: /^models\/notes\.json is invalid: the file is not a regular file/ });
});

t.test('an import of a handler swapped for a FIFO before its read fails to compile, and the process goes on', async (t) => {
  const app = makeApp({ resources: { 'notes.ts': "import { text } from './lib.ts';\necho(text);\n", 'lib.ts': "export const text = 'x';\n" } });
  t.teardown(() => app.cleanup());
  const out = await run(
    t,
    `import { swapForFifoWhenResolved } from ${JSON.stringify(join(scratch, 'swap.mjs'))};
import { Compiler } from ${JSON.stringify(join(ROOT, 'src/sandbox/compile.ts'))};
const dir = ${JSON.stringify(app.dir)};
swapForFifoWhenResolved(dir + '/resources/lib.ts');
const artifact = await new Compiler(dir).get(dir + '/resources/notes.ts');
console.log(JSON.stringify(artifact.ok ? 'compiled' : artifact.error));
process.exit(0);
`,
  );
  t.match(JSON.parse(out), { text: 'Cannot import "./lib.ts": it is not a regular file (a named pipe?)' });
});
