// Attack on `svc check --types`: esbuild drops `/// <reference path>`, `import type` and
// `typeof import()` without resolving them, so a handler that compiles could make TypeScript read
// any file of the host: another tenant's sources, whose types and literal values came back as
// type errors (`Type '"sk_live_…"' is not assignable…`), and a FIFO that held the check forever.
// README: the check covers "resources/*.ts and the files they import" against runtime/svc.d.ts and
// "no other types"; imports are "inside the app directory"; tenants share nothing.

import { execFile } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { typeErrors } from '../../src/sandbox/typecheck.ts';
import { NODE, NODE_FLAGS } from '../helpers/process.ts';
import { ROOT } from '../helpers/server.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-types-outside-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const write = (rel: string, content: string) => {
  const file = join(root, rel);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, content);
  return file;
};
// Another tenant's handler, with a secret in a literal type.
write('beta/resources/lib/keys.ts', 'export const apiKey = "sk_live_BETA_SECRET";\n');
write('beta/models/notes.json', '{"fields":{"name":{"type":"string"}}}');

const ATTACK = [
  '/// <reference path="../../beta/resources/lib/keys.ts" />',
  "import type * as Beta from '../../beta/resources/lib/keys.ts';",
  "type Keys = typeof import('../../beta/resources/lib/keys.ts');",
  // Each error names the literal type: `Type '1' is not assignable to type '"sk_live_…"'`.
  "export const a: Keys['apiKey'] = 1;",
  "export const b: (typeof Beta)['apiKey'] = 1;",
  "export function onList() { echo('x'); }",
  '',
].join('\n');

t.test("type-only imports and references do not read another tenant's files", async (t) => {
  const file = write('acme/resources/notes.ts', ATTACK);
  write('acme/models/notes.json', '{"fields":{"name":{"type":"string"}}}');
  const errors = await typeErrors(join(root, 'acme'), [file]);
  t.ok(errors.length > 0, 'the references are errors');
  t.notMatch(errors.join('\n'), /sk_live|BETA_SECRET/, errors.join('\n'));
  t.notOk(errors.some((e) => e.startsWith(root)), 'no error in a file outside the app');
});

t.test('a FIFO named by a reference does not hold svc check --types', async (t) => {
  const app = join(root, 'fifo');
  write('fifo/models/notes.json', '{"fields":{"name":{"type":"string"}}}');
  write('fifo/resources/notes.ts', '/// <reference path="./lib/pipe.ts" />\nexport function onList() { echo("x"); }\n');
  mkdirSync(join(app, 'resources', 'lib'), { recursive: true });
  execFileSync('mkfifo', [join(app, 'resources', 'lib', 'pipe.ts')]);
  const result = await new Promise<{ code: number | null; killed: boolean; out: string }>((resolve) => {
    execFile(NODE, [...NODE_FLAGS, join(ROOT, 'src/cli.ts'), 'check', '--types', '--app', app], { timeout: 10_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const e = err as (Error & { code?: number; killed?: boolean }) | null;
      resolve({ code: e ? (e.code ?? null) : 0, killed: e?.killed === true, out: stdout + stderr });
    });
  });
  t.notOk(result.killed, 'the check ends');
  t.equal(result.code, 1, result.out);
  t.match(result.out, /resources\/notes\.ts:1:\d+: error TS\d+/);
});
