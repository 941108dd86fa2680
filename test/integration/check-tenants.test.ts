// `svc check --tenants DIR` checks every tenant's app, as the start-up summary of `svc serve
// --tenants DIR` does, and names the tenant in each line; SVC_TENANTS does the same.

import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { NODE, NODE_FLAGS, runSvc } from '../helpers/process.ts';
import { makeApp, ROOT, type AppFiles } from '../helpers/server.ts';

const MODEL = { fields: { name: { type: 'string' } } };
const DELEGATE = 'svc.delegate();\n';
// Compiles (esbuild does not type-check): only --types finds the error.
const TYPED = "export function onList() {\n  const pages: number = zget('/request/method');\n  svc.delegate();\n}\n";

/** A tenants directory whose sub-directories are apps made of `tenants[name]`; removed when `t` ends. */
function tenantsDir(t: { teardown(fn: () => void): void }, tenants: Record<string, AppFiles>): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-check-tenants-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  for (const [name, files] of Object.entries(tenants)) {
    const app = makeApp(files);
    cpSync(app.dir, join(root, name), { recursive: true });
    app.cleanup();
  }
  return root;
}

// Two tenants with three models between them: not what ./app (the example app, in the working
// directory of these runs) would report.
const GOOD: Record<string, AppFiles> = {
  acme: { models: { notes: MODEL }, resources: { 'notes.ts': DELEGATE } },
  globex: { models: { notes: MODEL, people: MODEL }, resources: { 'notes.ts': DELEGATE, 'people.ts': DELEGATE } },
};

t.test('every tenant is checked; the summary counts tenants', async (t) => {
  const dir = tenantsDir(t, GOOD);
  const { code, out } = await runSvc(['check', '--tenants', dir]);
  t.equal(code, 0, out);
  t.match(out, /^svc check: 2 tenants, 3 models, 3 handlers: ok$/m);
});

t.test('tenants are the directories requests find: a link to one is checked, a name no Host can start with is named', async (t) => {
  const dir = tenantsDir(t, { acme: GOOD.acme!, broken: { models: { bad: '{ nope' }, resources: { 'bad.ts': DELEGATE } } });
  // Served (a request's lookup follows the link), so checked: before, svc check and the start-up
  // summary listed directories only and said nothing of it.
  symlinkSync(join(dir, 'broken'), join(dir, 'linked'));
  // A Host label starts with a letter or digit: no request reaches `-x`.
  mkdirSync(join(dir, '-x'));
  // Nor is a label over 63 characters (RFC 1035): a longer name was served until its store file's
  // name passed 255 bytes, and then every request was 503.
  mkdirSync(join(dir, 'a'.repeat(64)));
  const { code, out } = await runSvc(['check', '--tenants', dir]);
  t.equal(code, 1, out);
  t.match(out, /^linked: models\/bad\.json: not valid JSON/m, 'the linked tenant is checked');
  t.match(out, new RegExp(`^${'a'.repeat(64)}: warning: not served: tenant names are 1 to 63 `, 'm'));
  t.match(out, /^-x: warning: not served: tenant names are 1 to 63 lower-case letters, digits and '-' \(not first\), as a Host's first label$/m);
});

t.test("each tenant's problems and warnings name it; the other tenants are still checked", async (t) => {
  const dir = tenantsDir(t, {
    ...GOOD,
    broken: {
      models: { bad: '{ nope', notes: MODEL, lonely: MODEL },
      resources: { 'bad.ts': DELEGATE, 'notes.ts': 'export function onList() {\n  svc.delegate(;\n}\n' },
    },
    settings: { models: { notes: MODEL }, resources: { 'notes.ts': DELEGATE }, files: { 'svc.json': '{ nope' } },
  });
  mkdirSync(join(dir, 'Not_A_Tenant'));
  writeFileSync(join(dir, 'README'), 'not a directory: not a tenant\n');
  const { code, out } = await runSvc(['check', '--tenants', dir]);
  t.equal(code, 1, out);
  t.match(out, /^broken: models\/bad\.json: not valid JSON/m);
  t.match(out, /^broken: resources\/notes\.ts:2:\d+: /m);
  t.match(out, /^broken: models\/lonely\.json: warning: no handler/m);
  t.match(out, /^settings: svc\.json is not valid JSON/m, 'an app that cannot be opened is a problem of its tenant');
  t.match(out, /^Not_A_Tenant: warning: not served: tenant names are 1 to 63 lower-case letters, digits and '-' \(not first\), as a Host's first label$/m);
  t.notMatch(out, /^(acme|globex): /m, 'the correct tenants are not named');
  t.notMatch(out, /README/);
  t.match(out, /^svc check: 3 problems$/m);
});

t.test('--types type-checks every tenant, naming it', async (t) => {
  const dir = tenantsDir(t, { ...GOOD, typed: { models: { typed: MODEL }, resources: { 'typed.ts': TYPED } } });
  const { code, out } = await runSvc(['check', '--types', '--tenants', dir]);
  t.equal(code, 1, out);
  t.match(out, /^typed: resources\/typed\.ts:2:9: error TS2322: /m);
  t.match(out, /^svc check: 1 problem$/m);
});

t.test('SVC_TENANTS is read as svc serve reads it; a missing directory names --tenants', async (t) => {
  const dir = tenantsDir(t, GOOD);
  const run = promisify(execFile);
  const { stdout } = await run(NODE, [...NODE_FLAGS, join(ROOT, 'src/cli.ts'), 'check'], { cwd: ROOT, env: { ...process.env, SVC_TENANTS: dir } });
  t.match(stdout, /^svc check: 2 tenants, 3 models, 3 handlers: ok$/m);
  const missing = await runSvc(['check', '--tenants', join(dir, 'nowhere')]);
  t.equal(missing.code, 1, missing.out);
  t.match(missing.out, /^svc: --tenants \S+nowhere: no such directory/m);
});
