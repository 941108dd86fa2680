// What a request pays to see that its handler's cached build is still fresh: one `stat` of each file
// the build read or looked for (src/sandbox/compile.ts), on the event loop all apps share. Timed for
// handlers at the maxHandlerFiles bound, and for ones far over it, whose failed build keeps at most
// the bound to check, beside a handler of one file.
//
//   node bench/handler-files.ts [requests=2000]
//
// Each request is a cached `Compiler.get()` in a turn of its own (stats are shared within a turn
// only): the check runs before get() returns, so the time of that call is the check's.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '../src/exchange/limits.ts';
import { Compiler } from '../src/sandbox/compile.ts';

const REQUESTS = Number(process.argv[2] ?? 2000);
const BOUND = DEFAULT_LIMITS.maxHandlerFiles;
/** Directories whose imports, with the handler, stay within the bound. */
const DIRS = Math.floor((BOUND - 1) / 8);

/** A handler importing `n` files of lib/ named `<name><i>.ts`. */
const importing = (n: number, name: string) => Array.from({ length: n }, (_, i) => `import './lib/${name}${i}.ts';\n`).join('') + 'echo(1);\n';
/** A handler importing `n` directories of lib/ by their name, each found as `<dir>/index.js`: 8 names looked for each. */
const importingDirs = (n: number) => Array.from({ length: n }, (_, i) => `import './lib/d${i}';\n`).join('') + 'echo(1);\n';

const HANDLERS: [string, string][] = [
  ['one file', "export function onList() { echo('x'); }\n"],
  [`${BOUND - 1} imported files (at the bound)`, importing(BOUND - 1, 'f')],
  [`${DIRS} imported directories, each its index.js (${DIRS * 8 + 1} names, at the bound)`, importingDirs(DIRS)],
  ['3,000 imported files (refused)', importing(3000, 'f')],
  ['1,500 missing imports (refused)', importing(1500, 'missing')],
];

const dir = mkdtempSync(join(tmpdir(), 'svc-handler-files-'));
try {
  mkdirSync(join(dir, 'resources', 'lib'), { recursive: true });
  for (let i = 0; i < 3000; i++) writeFileSync(join(dir, 'resources', 'lib', `f${i}.ts`), `export const v${i} = ${i};\n`);
  for (let i = 0; i < DIRS; i++) {
    mkdirSync(join(dir, 'resources', 'lib', `d${i}`));
    writeFileSync(join(dir, 'resources', 'lib', `d${i}`, 'index.js'), `export const d${i} = ${i};\n`);
  }
  const compiler = new Compiler(dir);
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  for (const [i, [what, code]] of HANDLERS.entries()) {
    const file = join(dir, 'resources', `h${i}.ts`);
    writeFileSync(file, code);
    const built = await compiler.get(file);
    const times: number[] = [];
    for (let r = 0; r < REQUESTS; r++) {
      await turn();
      const t0 = performance.now();
      const got = compiler.get(file);
      times.push((performance.now() - t0) * 1000);
      if ((await got) !== built) throw new Error(`${what}: built again`);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(0);
    console.log(`${what}: ${built.ok ? 'compiles' : 'compile error'}; check per request: median ${at(0.5)} µs, p99 ${at(0.99)} µs`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
