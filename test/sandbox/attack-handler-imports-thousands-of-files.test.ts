// Attack: a handler that imports, or tries to import, thousands of files. Its build is cached, and
// every request stats each file the build read or looked for, synchronously, on the event loop all
// apps share: 3,000 imported files, or 1,500 missing ones (8 names looked for each), made every
// request of that handler do 3,001 or 12,001 stats, and another tenant's median latency went from
// 3.5 ms to 52 ms. README "Limits": a handler's build reads or looks for at most 512 files
// (maxHandlerFiles); over it the handler is 500 handler-compile-error naming the bound, in any
// mode, `svc check` says the same, and the failed build keeps no more than that to check.

import fs, { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { check, parseConfig } from '../../src/cli.ts';
import { DEFAULT_LIMITS } from '../../src/exchange/limits.ts';
import { Compiler, type Artifact } from '../../src/sandbox/compile.ts';
import { body, sandboxServer } from './harness.ts';

const BOUND = DEFAULT_LIMITS.maxHandlerFiles;
const OVER = new RegExp(`reads or looks for more than ${BOUND} files \\(the server's maxHandlerFiles limit\\)`);
const M = { fields: { name: { type: 'string' } } };

/** A handler importing `lib/f<i>.ts` for each i below `n`, and those files; `lib/missing<i>.ts`, which are not there, when `missing`. */
function importing(n: number, missing = false): { handler: string; files: Record<string, string> } {
  const name = missing ? 'missing' : 'f';
  const imports = Array.from({ length: n }, (_, i) => `import { v${i} } from './lib/${name}${i}.ts';`);
  const sum = Array.from({ length: n }, (_, i) => `v${i}`).join(' + ') || '0';
  const files = missing ? {} : Object.fromEntries(Array.from({ length: n }, (_, i) => [`resources/lib/f${i}.ts`, `export const v${i} = 1;\n`]));
  return { handler: `${imports.join('\n')}\nexport function onList() { echo(String(${sum})); }\n`, files };
}

t.test('a handler that imports more files than the bound: 500 naming the bound, in any mode, and svc check says so', async (t) => {
  const over = importing(BOUND);
  const resources = { 'notes.ts': over.handler, 'ghosts.ts': importing(1500, true).handler };
  const s = await sandboxServer({ models: { notes: M, ghosts: M }, resources, files: over.files });
  t.teardown(() => s.close());
  for (const name of ['notes', 'ghosts']) {
    const res = await fetch(s.at(`/resources/${name}`));
    t.equal(res.status, 500, name);
    // Outside development mode: the bound's text holds no source, so the client sees what to fix.
    t.match(await body(res), { code: 'handler-compile-error', detail: OVER }, name);
    t.ok(s.log.some((line) => line.includes(`resources/${name}.ts: The handler resources/${name}.ts`) && OVER.test(line)), `${name}: logged`);
  }

  const lines: string[] = [];
  t.equal(await check(parseConfig(['check', '--app', s.dir], {}).config, (line) => lines.push(line)), 2, lines.join('\n'));
  for (const name of ['notes', 'ghosts']) t.ok(lines.some((l) => l.startsWith(`resources/${name}.ts: `) && OVER.test(l)), `svc check: ${name}`);

  // One file fewer is within the bound (the handler itself is one of the files): the fix is seen.
  const within = importing(BOUND - 1);
  s.write('resources/notes.ts', within.handler);
  const res = await fetch(s.at('/resources/notes'));
  t.same([res.status, await res.text()], [200, String(BOUND - 1)], 'at the bound it compiles and serves');
});

/** An app directory with `resources/lib/`, removed when `t` ends, and `write(rel, code)`, which gives the file's path. */
function appDir(t: Test): { dir: string; write: (rel: string, code: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-many-imports-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'resources', 'lib'), { recursive: true });
  const write = (rel: string, code: string) => {
    writeFileSync(join(dir, rel), code);
    return join(dir, rel);
  };
  return { dir, write };
}

t.test('a request for a cached handler stats at most the bound, however many files its build read or looked for', async (t) => {
  const { dir, write } = appDir(t);
  for (let i = 0; i < 3000; i++) write(`resources/lib/f${i}.ts`, `export const v${i} = 1;\n`);
  const compiler = new Compiler(dir);

  // What the build gives (true: it compiles), and the most files a request may stat.
  const cases: [string, string, true | RegExp, number][] = [
    ['at the bound: the handler and 511 imports', importing(BOUND - 1).handler, true, BOUND],
    ['3,000 files read', importing(3000).handler, OVER, BOUND],
    ['1,500 missing imports, 8 names looked for each', importing(1500, true).handler, OVER, BOUND],
    ['8,000 names of one file (`?n`), each looked for under 8', Array.from({ length: 1000 }, (_, i) => `import './lib/f0.ts?${i}';`).join('\n'), OVER, BOUND],
    // One import looks for a bounded number of names: `.ts` for `.js`, then the 8 spellings.
    ['one missing import', "import './lib/none.js';\n", /no such file in the app/, 1 + 9],
    // Not a glob over lib/'s 3,000 files: without a resolveDir esbuild expands none.
    ['a glob import', 'export async function onList() { const n = "f1"; echo(String((await import(`./lib/${n}.ts`)).v1)); }\n', /Could not resolve/, 1],
  ];
  for (const [i, [what, handler, outcome, most]] of cases.entries()) {
    const file = write(`resources/h${i}.ts`, handler);
    const built = await compiler.get(file);
    if (outcome === true) t.ok(built.ok, `${what}: compiles`);
    else t.match(!built.ok && built.error.text, outcome, `${what}: the compile error`);
    if (outcome === OVER) t.match(built, { error: { bound: true } }, `${what}: shown in any mode`);
    const { calls, artifact } = await cachedRequest(compiler, file);
    t.equal(artifact, built, `${what}: served from the cache`);
    t.ok(calls <= most, `${what}: a request stats ${calls} files, at most ${most}`);
  }
});

t.test('the failed build keeps what a fix changes, in an imported file as in the handler', async (t) => {
  const { dir, write } = appDir(t);
  const compiler = new Compiler(dir);
  // The imports are in lib/hub.ts: a fix there, not in the handler, must be seen.
  const imports = Array.from({ length: 2000 }, (_, i) => `import './missing${i}.ts';\n`).join('');
  const file = write('resources/hub.ts', "import { n } from './lib/hub.ts';\nexport function onList() { echo(String(n)); }\n");
  write('resources/lib/hub.ts', `${imports}export const n = 2000;\n`);
  const failed = await compiler.get(file);
  t.match(!failed.ok && failed.error, { text: OVER }, "over the bound through lib/hub.ts's imports");
  await nextTurn();
  t.equal(await compiler.get(file), failed, 'unchanged: the same failure, from the cache');

  write('resources/lib/hub.ts', 'export const n = 1;\n');
  await nextTurn();
  const fixed = await compiler.get(file);
  t.ok(fixed.ok, 'the imported file that had the imports changed: built again, and it compiles');
});

/** Files are looked at once per turn of the event loop (src/model/file-stat.ts): a later request is in a later turn. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The `stat` calls of a request in a new turn for the handler `file`, and the artifact it got:
 * get() checks a cached build's inputs before it returns.
 */
async function cachedRequest(compiler: Compiler, file: string): Promise<{ calls: number; artifact: Artifact }> {
  await nextTurn();
  const real = fs.statSync;
  let calls = 0;
  // node:fs's named exports (file-stat.ts imports `statSync`) follow the module object once synced.
  (fs as { statSync: unknown }).statSync = (...args: Parameters<typeof real>) => {
    calls++;
    return real(...args);
  };
  syncBuiltinESMExports();
  let pending: Promise<Artifact>;
  try {
    pending = compiler.get(file);
  } finally {
    (fs as { statSync: unknown }).statSync = real;
    syncBuiltinESMExports();
  }
  return { calls, artifact: await pending };
}
