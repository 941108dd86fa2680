// Attack: a `//# sourceMappingURL=` comment in a handler (or a file it imports) names a file outside
// the app. esbuild reads the input source map a comment names itself, relative to the resolveDir
// a plugin gives or absolute, past the import guard and readAppFile: the compile error then showed
// the file's first token (`Unexpected "sk_live_…" in source map`), a FIFO held the lane until
// compileTimeoutMs, and /dev/zero grew the esbuild process by about 1 GiB a second. README
// "Handlers": files outside the app are compile errors, and only files of the app are read.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { DEFAULT_LIMITS } from '../../src/exchange/limits.ts';
import { Compiler } from '../../src/sandbox/compile.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-srcmap-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const outside = join(root, 'outside');
mkdirSync(outside);
writeFileSync(join(outside, 'token'), 'sk_live_TOPSECRET123\n');
writeFileSync(join(outside, 'names.map'), JSON.stringify({ version: 3, sources: ['OTHER-TENANT-FILE.ts'], names: [], mappings: 'AAAA' }));
execFileSync('mkfifo', [join(outside, 'fifo')]);

const app = join(root, 'app');
mkdirSync(join(app, 'resources', 'lib'), { recursive: true });
const write = (rel: string, code: string) => {
  writeFileSync(join(app, rel), code);
  return join(app, rel);
};
// A short time bound: a build that waits on the FIFO fails fast instead of taking 5 s.
const compiler = new Compiler(app, { ...DEFAULT_LIMITS, compileTimeoutMs: 2000 });

t.test('a source-map comment naming a host file is not followed: the handler compiles as without it', async (t) => {
  const cases: [string, string][] = [
    ['absolute.ts', `echo('x');\n//# sourceMappingURL=${join(outside, 'token')}\n`],
    ['relative.ts', `echo('x');\n//# sourceMappingURL=../../outside/token\n`],
    ['block.ts', `echo('x');\n/*# sourceMappingURL=${join(outside, 'token')} */\n`],
    ['legacy.ts', `echo('x');\n//@ sourceMappingURL=${join(outside, 'token')}\n`],
    ['map.ts', `echo('x');\n//# sourceMappingURL=${join(outside, 'names.map')}\n`],
  ];
  for (const [name, code] of cases) {
    const artifact = await compiler.get(write(`resources/${name}`, code));
    t.ok(artifact.ok, `${name} compiles`);
    t.notMatch(JSON.stringify(artifact.ok ? artifact.map : artifact.error), /sk_live|TOPSECRET|OTHER-TENANT|outside/, `${name}: nothing of the host file`);
  }
});

t.test('in an imported file too', async (t) => {
  write('resources/lib/helper.ts', `export const h = 1;\n//# sourceMappingURL=${join(outside, 'token')}\n`);
  const artifact = await compiler.get(write('resources/imports.ts', "import { h } from './lib/helper.ts';\necho(String(h));\n"));
  t.ok(artifact.ok);
  t.notMatch(JSON.stringify(artifact.ok ? artifact.map : artifact.error), /sk_live|TOPSECRET/);
});

t.test('a FIFO named by the comment does not hold the compiler', async (t) => {
  const artifact = await compiler.get(write('resources/fifo.ts', `echo('x');\n//# sourceMappingURL=${join(outside, 'fifo')}\n`));
  t.ok(artifact.ok, artifact.ok ? 'compiles' : artifact.error.text);
});

t.test('imports still resolve from the importing file, nested directories and ../ included', async (t) => {
  mkdirSync(join(app, 'resources', 'lib', 'deep'), { recursive: true });
  write('resources/lib/deep/d.ts', "import { h } from '../helper.ts';\nexport const d = h + 1;\n");
  const artifact = await compiler.get(write('resources/nested.ts', "import { d } from './lib/deep/d';\necho(String(d));\n"));
  t.ok(artifact.ok && artifact.code.includes('d = h + 1'));
  const outsideImport = await compiler.get(write('resources/escape.ts', "import x from '../../outside/token';\necho(x);\n"));
  t.match(!outsideImport.ok && outsideImport.error.text, /outside the app directory/);
});
