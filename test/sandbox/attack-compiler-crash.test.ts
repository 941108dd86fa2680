// Attack: a handler that crashes esbuild (deep nesting: Go's `fatal error: stack overflow`), keeps
// it busy, or is huge must fail alone: another tenant's new or changed handler still compiles and
// serves, and the crasher does not fire again on every request.

import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { Limits } from '../../src/exchange/limits.ts';
import { compilerRestarts } from '../../src/sandbox/compile-lanes.ts';
import { makeApp, startServer } from '../helpers/server.ts';

const NOTES = { fields: { name: { type: 'string' } } };
const handler = (word: string) => `export function onList() { echo(${JSON.stringify(word)}); }\n`;
/** 200 KB of nested blocks, under maxHandlerBytes: esbuild's parser overflows Go's 1 GB stack on it. */
const CRASHER = '{'.repeat(200_000);

async function tenants(t: Test, limits: Partial<Limits>) {
  const root = makeApp({});
  t.teardown(() => root.cleanup());
  const write = (tenant: string, rel: string, content: string) => {
    const file = join(root.dir, tenant, rel);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, content);
    return file;
  };
  for (const tenant of ['alpha', 'beta']) write(tenant, 'resources/.keep', '');
  const models = ['bomb', 'slow', 'big', 'parts', 'fresh', 'during', 'notes'];
  for (const tenant of ['alpha', 'beta']) for (const m of models) write(tenant, `models/${m}.json`, JSON.stringify(NOTES));
  const server = await startServer({ tenantsDir: root.dir, limits });
  t.teardown(() => server.close());
  const get = (tenant: string, path: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path, headers: { host: `${tenant}.localhost` } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.end();
    });
  return { write, get };
}

// One crash serves both halves of the attack (each crash costs esbuild about 1.3 s of CPU): another
// tenant's builds while the crasher is compiled, and after it died.
t.test('a handler that crashes esbuild: other tenants keep compiling, during the crash and after, and it does not fire again', async (t) => {
  // No time bound in the way: this is about the crash (it takes ~2 s alone).
  const { write, get } = await tenants(t, { compileTimeoutMs: 120_000 });
  write('beta', 'resources/notes.ts', handler('beta v1'));
  t.equal((await get('beta', '/resources/notes')).text, 'beta v1');

  const bomb = write('alpha', 'resources/bomb.ts', CRASHER);
  const restarts = compilerRestarts();
  const crash = get('alpha', '/resources/bomb');
  // Another tenant's build in progress when the crasher dies still compiles: enough beta builds
  // to overlap the ~2 s the crasher takes, each new.
  let n = 0;
  let done = false;
  void crash.finally(() => (done = true));
  while (!done || n === 0) {
    write('beta', 'resources/during.ts', handler(`during ${++n}`));
    const res = await get('beta', '/resources/during');
    t.same(res, { status: 200, text: `during ${n}` }, `beta build ${n}`);
    if (res.status !== 200) break;
  }
  t.comment(`${n} beta builds while alpha's crasher was compiled`);
  const crashed = await crash;
  t.equal(crashed.status, 500);
  t.match(JSON.parse(crashed.text), { code: 'handler-compile-error', detail: /bomb\.ts crashed the compiler/ });
  t.equal(compilerRestarts(), restarts + 1, 'its esbuild was restarted');

  write('beta', 'resources/fresh.ts', handler('beta new'));
  t.same(await get('beta', '/resources/fresh'), { status: 200, text: 'beta new' }, "a new handler of another tenant after the crash");
  write('beta', 'resources/notes.ts', handler('beta v2, changed'));
  t.same(await get('beta', '/resources/notes'), { status: 200, text: 'beta v2, changed' }, "a changed handler of another tenant after the crash");

  // Remembered by content: neither a second request nor a new mtime compiles it again.
  t.equal((await get('alpha', '/resources/bomb')).status, 500);
  utimesSync(bomb, new Date(), new Date(Date.now() + 5000));
  t.match(JSON.parse((await get('alpha', '/resources/bomb')).text), { detail: /crashed the compiler/ });
  t.equal(compilerRestarts(), restarts + 1, 'the crasher did not fire again');

  write('alpha', 'resources/bomb.ts', handler('alpha fixed'));
  t.same(await get('alpha', '/resources/bomb'), { status: 200, text: 'alpha fixed' }, 'a fixed file compiles');
});

t.test('a handler over maxHandlerBytes is refused before esbuild reads it, naming the limit', async (t) => {
  const { write, get } = await tenants(t, {});
  const restarts = compilerRestarts();
  // The attack as filed: 2 MB of nested parentheses.
  write('alpha', 'resources/big.ts', 'export const x = ' + '('.repeat(1_000_000) + ')'.repeat(1_000_000));
  const res = await get('alpha', '/resources/big');
  t.equal(res.status, 500);
  t.match(JSON.parse(res.text), { code: 'handler-compile-error', detail: /over 262144 bytes \(the server's maxHandlerBytes limit\)/ });
  // The bound covers the imports too: three files of 100 KB.
  const filler = `export const s = "${'x'.repeat(100_000)}";\n`;
  write('alpha', 'resources/lib/a.ts', filler);
  write('alpha', 'resources/lib/b.ts', filler);
  write('alpha', 'resources/parts.ts', `import { s as a } from './lib/a.ts';\nimport { s as b } from './lib/b.ts';\nconst c = "${'x'.repeat(100_000)}";\nexport function onList() { echo(a + b + c); }\n`);
  t.match(JSON.parse((await get('alpha', '/resources/parts')).text), { detail: /maxHandlerBytes/ });
  t.equal(compilerRestarts(), restarts, 'esbuild never saw them');
  write('beta', 'resources/notes.ts', handler('beta'));
  t.equal((await get('beta', '/resources/notes')).status, 200);
});

t.test('a handler that keeps esbuild busy past compileTimeoutMs is stopped, alone', async (t) => {
  // 160 KB of nested arrows take esbuild ~20 s (quadratic); 2 s is 100 times a normal compile.
  const { write, get } = await tenants(t, { compileTimeoutMs: 2000 });
  write('alpha', 'resources/slow.ts', 'export const x = ' + '()=>'.repeat(40_000) + '1;\n');
  const restarts = compilerRestarts();
  const slow = get('alpha', '/resources/slow');
  write('beta', 'resources/notes.ts', handler('beta meanwhile'));
  t.same(await get('beta', '/resources/notes'), { status: 200, text: 'beta meanwhile' }, 'beta compiles while alpha runs long');
  const res = await slow;
  t.equal(res.status, 500);
  t.match(JSON.parse(res.text), { code: 'handler-compile-error', detail: /took longer than 2000 ms to compile \(the server's compileTimeoutMs limit\)/ });
  t.equal(compilerRestarts(), restarts + 1);
  t.equal((await get('alpha', '/resources/slow')).status, 500, 'remembered');
  t.equal(compilerRestarts(), restarts + 1, 'not compiled again');
});
