// Handlers that throw or do not compile: 500 problems, with details only in development mode, and no effect on other collections.

import t from 'tap';
import { createSandboxRuntime } from '../../src/sandbox/runtime.ts';
import { resolveLimits } from '../../src/exchange/limits.ts';
import { Logger } from '../../src/exchange/log.ts';
import type { AppFiles } from '../helpers/server.ts';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const files: AppFiles = {
  models: { unclosed: PEOPLE, thrower: PEOPLE, asyncthrower: PEOPLE, hangs: PEOPLE, broken: PEOPLE, pkg: PEOPLE, outside: PEOPLE, fine: PEOPLE, odd: PEOPLE },
  resources: {
    'thrower.ts': `import { check } from './lib/check.ts';\nexport function onList() {\n  check(zget('/request/params/n'));\n}\n`,
    'asyncthrower.ts': 'export async function onList() {\n  await null;\n  throw new RangeError("later");\n}\n',
    'hangs.ts': 'export function onList() {\n  return new Promise(() => {});\n}\n',
    'broken.ts': 'export function onList() {\n  const x = ;\n}\n',
    'pkg.ts': "import { readFileSync } from 'node:fs';\nexport function onList() { echo(String(readFileSync)); }\n",
    'outside.ts': "import secret from '../../../../../../../etc/hostname';\nexport function onList() { echo(String(secret)); }\n",
    'fine.ts': "export function onList() { echo('fine'); }\n",
    'unclosed.ts': 'export function onList() {\n  echo("x");\n',
    'odd.ts': "export function onList() { throw { not: 'an error' }; }\n",
  },
  files: { 'resources/lib/check.ts': "export function check(n: unknown) {\n  if (n === undefined) throw new TypeError('n is missing');\n}\n" },
};

const dev = await sandboxServer(files, { dev: true });
const prod = await sandboxServer(files, { dev: false });
t.teardown(async () => {
  await dev.close();
  await prod.close();
});

t.test('a handler that throws is 500 handler-error with its message and line in development mode', async (t) => {
  const res = await fetch(dev.at('/resources/thrower'));
  t.equal(res.status, 500);
  t.equal(res.headers.get('content-type'), 'application/problem+json');
  t.same(await body(res), {
    type: 'about:blank',
    title: 'Internal Server Error',
    status: 500,
    detail: 'TypeError: n is missing (resources/lib/check.ts:2)',
    code: 'handler-error',
    requestId: res.headers.get('x-request-id'),
  });
  t.ok(dev.log.some((l) => l.includes('handler threw TypeError: n is missing (resources/lib/check.ts:2)')), 'and in the log');
});

t.test('outside development mode the problem says nothing about the handler or the host', async (t) => {
  const res = await fetch(prod.at('/resources/thrower'));
  t.equal(res.status, 500);
  const problem = await body(res);
  t.match(problem, { code: 'handler-error', status: 500 });
  t.notMatch(problem.detail, /missing|check\.ts|\/tmp|svc-app/);
  t.ok(prod.log.some((l) => l.includes('n is missing')), 'the log has it');
});

t.test('async rejections and thrown non-errors are handler errors too', async (t) => {
  t.match(await body(await fetch(dev.at('/resources/asyncthrower'))), { status: 500, detail: /^RangeError: later \(resources\/asyncthrower\.ts:3\)$/ });
  t.match(await body(await fetch(dev.at('/resources/odd'))), { status: 500, detail: /a non-Error value was thrown: \{"not":"an error"\}/ });
});

t.test('a promise that can never settle is a handler error, not a hung request', async (t) => {
  const res = await fetch(dev.at('/resources/hangs'));
  t.equal(res.status, 500);
  t.match(await body(res), { code: 'handler-error', detail: /never settles/ });
});

t.test('a handler that does not compile is 500 with the compile error, file and line in development mode', async (t) => {
  const res = await fetch(dev.at('/resources/broken'));
  t.equal(res.status, 500);
  const problem = await body(res);
  t.match(problem, { code: 'handler-compile-error', detail: /^resources\/broken\.ts:2:\d+: Unexpected ";"/ });
  const quiet = await body(await fetch(prod.at('/resources/broken')));
  t.match(quiet, { code: 'handler-compile-error' });
  t.notMatch(quiet.detail, /Unexpected|:2:/);
});

t.test('a file that ends too early is reported at its end', async (t) => {
  t.match(await body(await fetch(dev.at('/resources/unclosed'))), { detail: /^resources\/unclosed\.ts:3:1: Unexpected end of file/ });
});

t.test('other collections keep serving beside one that does not compile', async (t) => {
  const res = await fetch(dev.at('/resources/fine'));
  t.equal(await res.text(), 'fine');
});

t.test('handlers cannot import packages, Node built-ins or files outside the app', async (t) => {
  t.match(await body(await fetch(dev.at('/resources/pkg'))), { code: 'handler-compile-error', detail: /Cannot import "node:fs": a handler may import only relative files/ });
  const outside = await body(await fetch(dev.at('/resources/outside')));
  t.match(outside, { code: 'handler-compile-error', detail: /Cannot import ".*etc\/hostname": (it is outside the app directory|no such file in the app)/ });
  t.notMatch(outside.detail, new RegExp(dev.dir), 'no absolute host paths');
});

t.test('check() reports compile errors with file and line, and nothing for a good handler', async (t) => {
  const runtime = createSandboxRuntime({ name: 'check', dir: dev.dir, limits: resolveLimits(), log: new Logger(() => {}) });
  t.teardown(() => runtime.close());
  t.match(await runtime.check(`${dev.dir}/resources/broken.ts`), /^resources\/broken\.ts:2:\d+: Unexpected ";"/);
  t.equal(await runtime.check(`${dev.dir}/resources/fine.ts`), undefined);
});
