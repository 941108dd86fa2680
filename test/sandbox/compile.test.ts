// The compiler on its own: the delegate-only shortcut, the import guard, and the cache that follows file changes.

import { mkdtempSync, rmSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Compiler } from '../../src/sandbox/compile.ts';
import { HANDLER_FORMS } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-compile-'));
mkdirSync(join(dir, 'resources', 'lib'), { recursive: true });
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, code: string) => {
  const path = join(dir, 'resources', name);
  writeFileSync(path, code);
  return path;
};
const compiler = new Compiler(dir);
/** Files are looked at once per turn of the event loop (src/model/file-stat.ts): a change is seen from the next turn on, as by the next request. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

t.test('only a script that is exactly svc.delegate() (comments aside) skips the isolate', async (t) => {
  const cases: [string, boolean][] = [
    ['svc.delegate();\n', true],
    ['// the whole handler\n/* really */ svc_delegate()', true],
    ['svc.delegate(); svc.delegate();', false],
    ["svc.delegate(); console.log('x');", false],
    ['export function onList() { svc.delegate(); }', false],
    ['const svc2 = svc; svc2.delegate();', false],
    // The HTTP suites run once per form: the second must really go through the isolate.
    [HANDLER_FORMS[0].code, true],
    [HANDLER_FORMS[1].code, false],
  ];
  for (const [i, [code, expected]] of cases.entries()) {
    const artifact = await compiler.get(file(`d${i}.ts`, code));
    t.equal(artifact.ok && artifact.delegateOnly, expected, JSON.stringify(code));
  }
});

t.test('an unchanged file is served from the cache; a change rebuilds; a touch keeps the same code', async (t) => {
  const path = file('cached.ts', "import { x } from './lib/x.ts';\nexport function onList() { echo(x); }\n");
  writeFileSync(join(dir, 'resources', 'lib', 'x.ts'), "export const x = 'one';\n");
  const first = await compiler.get(path);
  t.equal(await compiler.get(path), first, 'same artifact while nothing changed');
  const later = new Date(Date.now() + 5000);
  utimesSync(path, later, later);
  await nextTurn();
  const touched = await compiler.get(path);
  t.equal(touched, first, 'same content hash: the same artifact');
  writeFileSync(join(dir, 'resources', 'lib', 'x.ts'), "export const x = 'two';\n");
  await nextTurn();
  const changed = await compiler.get(path);
  t.not(changed, first, 'an imported file changed');
  t.ok(changed.ok && changed.code.includes('"two"'));
  t.not(changed.hash, first.hash);
});

t.test('a missing import is rechecked, so adding the file fixes the handler', async (t) => {
  const path = file('later.ts', "import { y } from './lib/y.ts';\nexport function onList() { echo(y); }\n");
  const broken = await compiler.get(path);
  t.notOk(broken.ok);
  t.match(!broken.ok && broken.error, { text: /Cannot import "\.\/lib\/y\.ts": no such file in the app/, location: 'resources/later.ts:1:19' });
  writeFileSync(join(dir, 'resources', 'lib', 'y.ts'), "export const y = 'y';\n");
  t.ok((await compiler.get(path)).ok);
});

t.test('imports: relative .ts/.js/.json inside the app only', async (t) => {
  writeFileSync(join(dir, 'resources', 'lib', 'data.json'), '{"n": 1}');
  writeFileSync(join(dir, 'resources', 'lib', 'note.txt'), 'text');
  t.ok((await compiler.get(file('json.ts', "import data from './lib/data.json';\nexport function onList() { echo(data.n); }\n"))).ok);
  t.ok((await compiler.get(file('jsext.ts', "import { y } from './lib/y.js';\nexport function onList() { echo(y); }\n"))).ok, 'TypeScript-style .js import of a .ts file');
  const refused: [string, RegExp][] = [
    ["import x from 'lodash';", /Cannot import "lodash": a handler may import only relative files/],
    ["import x from 'fs';", /Cannot import "fs"/],
    ["import x from '/etc/passwd';", /Cannot import "\/etc\/passwd"/],
    ["import x from './lib/note.txt';", /only \.ts, \.js and \.json files/],
    ["const x = require('child_process');", /Cannot import "child_process"/],
  ];
  for (const [i, [code, message]] of refused.entries()) {
    const artifact = await compiler.get(file(`refused${i}.ts`, `${code}\nexport function onList() { echo(String(x)); }\n`));
    t.match(!artifact.ok && artifact.error.text, message, code);
  }
});
