// `svc check --types` through the command line: handlers type-checked against runtime/svc.d.ts,
// each error with file, line and column; plain `svc check` does not type-check.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { runSvc } from '../helpers/process.ts';
import { EXAMPLE_APP, makeApp, ROOT } from '../helpers/server.ts';

const svc = runSvc;

const MODEL = { fields: { name: { type: 'string' } } };
const GOOD = "export function onList() {\n  const method: string | undefined = zget('/request/method');\n  if (method === 'GET') svc.delegate();\n}\n";
// Each compiles (esbuild strips types without checking them): only --types finds the errors.
const TYPED = "export function onList() {\n  const pages: number = zget('/request/method');\n  svc.delegate();\n}\n";
const USES_HELPER = "import { title } from '../lib/title.ts';\nexport function onList() {\n  echo(title('x'));\n}\n";
const HELPER = "export function title(s: string): string {\n  return s.toUpperCase(1);\n}\n";

function badApp() {
  return makeApp({
    models: { good: MODEL, typed: MODEL, notes: MODEL },
    resources: { 'good.ts': GOOD, 'typed.ts': TYPED, 'notes.ts': USES_HELPER },
    files: { 'lib/title.ts': HELPER },
  });
}

t.test('plain svc check does not type-check: the same app passes', async (t) => {
  const app = badApp();
  t.teardown(() => app.cleanup());
  const { code, out } = await svc(['check', '--app', app.dir]);
  t.equal(code, 0, out);
  t.match(out, /svc check: 3 models, 3 handlers: ok/);
  t.notMatch(out, /TS\d/);
});

t.test('svc check --types: every type error with file:line:col and the message, and a non-zero exit', async (t) => {
  const app = badApp();
  t.teardown(() => app.cleanup());
  const { code, out } = await svc(['check', '--types', '--app', app.dir]);
  t.equal(code, 1, out);
  t.match(out, /^resources\/typed\.ts:2:9: error TS2322: Type 'string \| undefined' is not assignable to type 'number'\./m);
  t.match(out, /^lib\/title\.ts:2:24: error TS2554: Expected 0 arguments, but got 1\./m, 'a file a handler imports is checked too, under its own name');
  t.notMatch(out, /good\.ts/, 'the correct handler is not named');
  t.match(out, /svc check: 2 problems/);
});

// GOOD itself passes in the run above (it is not named there); here a whole app of correct
// handlers passes, with the summary line of success.
t.test('svc check --types passes correct handlers', async (t) => {
  const example = await svc(['check', '--types', '--app', EXAMPLE_APP]);
  t.equal(example.code, 0, example.out);
  const count = (dir: string) => readdirSync(join(EXAMPLE_APP, dir)).length;
  t.match(example.out, new RegExp(`^svc check: ${count('models')} models, ${count('resources')} handlers: ok$`, 'm'));
});

// README "Handlers": a script is an ES module. Checked as a script, handlers without an import or
// export shared one global scope: two that each declared `const order` were "Cannot redeclare
// block-scoped variable", and one could use another's top-level names (a ReferenceError when run).
t.test('svc check --types checks each handler as a module: its top-level names are its own', async (t) => {
  const script = (body: string) => `${body}\nif (!zcontains('/request/params/order_by')) zput('/request/params/order_by', order);\nsvc.delegate();\n`;
  const app = makeApp({
    models: { a: MODEL, b: MODEL, c: MODEL },
    resources: { 'a.ts': script("const order = '-name';"), 'b.ts': script("const order = 'name';"), 'c.ts': script('') },
  });
  t.teardown(() => app.cleanup());
  const { code, out } = await svc(['check', '--types', '--app', app.dir]);
  t.equal(code, 1, out);
  t.notMatch(out, /TS2451/, 'no "Cannot redeclare" between a.ts and b.ts');
  t.notMatch(out, /^resources\/[ab]\.ts/m, 'a.ts and b.ts are correct');
  t.match(out, /^resources\/c\.ts:2:\d+: error TS2304: Cannot find name 'order'\./m, "c.ts does not see a.ts's names");
  t.match(out, /svc check: 1 problem$/m);
});

// README "Context keys": a Date given to the runtime becomes its ISO string, at any depth, as svc.d.ts
// said in a comment; its types refused one (TS2345: Type 'Date' is not assignable to 'SvcJson').
t.test('svc check --types takes a Date wherever the runtime does: zput, the JSON view, a body, the model API', async (t) => {
  const dates = [
    "zput('/seen', new Date());",
    "svc.put('/at', { when: [new Date(0)] });",
    "zput('/request/json/output', { now: new Date() });",
    "zput('/request/body', { ...zget('/request/body'), at: new Date() });",
    "const c = svc.collection('dates');",
    "c.create({ at: new Date() });",
    "c.update(1, { at: new Date() });",
    'svc.delegate();',
  ].join('\n');
  const app = makeApp({ models: { dates: { fields: { at: { type: 'date-time' } } } }, resources: { 'dates.ts': `${dates}\n` } });
  t.teardown(() => app.cleanup());
  const { code, out } = await svc(['check', '--types', '--app', app.dir]);
  t.equal(code, 0, out);
  t.match(out, /svc check: 1 models, 1 handlers: ok/);
  // Still refused: what no Date can be.
  app.write('resources/dates.ts', "zput('/request/status', new Date());\nsvc.delegate();\n");
  const status = await svc(['check', '--types', '--app', app.dir]);
  t.equal(status.code, 1, status.out);
  t.match(status.out, /^resources\/dates\.ts:1:\d+: error TS2345/m);
});

t.test('without TypeScript, --types is one line saying so, and a non-zero exit', async (t) => {
  const app = makeApp({ models: { good: MODEL }, resources: { 'good.ts': GOOD } });
  t.teardown(() => app.cleanup());
  const hook = pathToFileURL(join(ROOT, 'test/helpers/no-typescript.ts')).href;
  const { code, out } = await svc(['check', '--types', '--app', app.dir], ['--import', hook]);
  t.equal(code, 1, out);
  t.equal(out.trim(), "svc: svc check --types needs TypeScript, and the typescript package is not installed: install svc's dependencies with npm ci (typescript is one of them), or run svc check without --types");
  const plain = await svc(['check', '--app', app.dir], ['--import', hook]);
  t.equal(plain.code, 0, 'plain svc check does not need it');
});

t.test('--types belongs to svc check', async (t) => {
  const { code, out } = await svc(['serve', '--types', '--port', '0']);
  t.equal(code, 2);
  t.match(out, /--types is an option of svc check/);
});
