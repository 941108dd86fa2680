// Attack: unbounded recursion, in handler code and through the runtime API. The stack overflow stays inside the isolate.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { recurse: PEOPLE, caught: PEOPLE, nested: PEOPLE, deepcall: PEOPLE },
    resources: {
      'recurse.ts': 'function down(n: number): number {\n  return down(n + 1) + 1;\n}\nexport function onList() {\n  down(0);\n}\n',
      'caught.ts': [
        'function down(n: number): number { return down(n + 1) + 1; }',
        'export function onList() {',
        "  try { down(0); } catch (e) { echo('caught ' + (e as Error).name); }",
        '}',
      ].join('\n'),
      // A value nested deeper than the copy allows.
      'nested.ts': [
        'export function onList() {',
        '  let v: unknown = 1;',
        '  for (let i = 0; i < 100_000; i++) v = [v];',
        "  zput('/request/json/output', v);",
        '}',
      ].join('\n'),
      // Runtime calls made from the bottom of a deep stack.
      'deepcall.ts': [
        'function down(n: number): void {',
        "  if (n === 0) { zput('/x', { a: 1 }); echo(String(zget('/x'))); return; }",
        '  down(n - 1);',
        '}',
        'export function onList() {',
        '  let depth = 1000;',
        '  for (;;) { try { down(depth); depth *= 2; } catch { break; } }',
        "  echo(' survived');",
        '}',
      ].join('\n'),
    },
  },
  // deepcall recurses ever deeper until the stack runs out: ~70 ms of CPU, too close to the default
  // limit (100 ms) on a loaded machine. This file is about the stack, not about CPU time.
  { dev: true, limits: { cpuLimitMs: 1000 } },
);
t.teardown(() => s.close());

t.test('a stack overflow is a 500 handler error, not a crash', async (t) => {
  const res = await fetch(s.at('/resources/recurse'));
  t.equal(res.status, 500);
  t.match(await body(res), { code: 'handler-error', detail: /^RangeError: Maximum call stack size exceeded/ });
  t.equal((await fetch(s.at('/healthz'))).status, 200);
});

t.test('a handler may catch its own stack overflow', async (t) => {
  t.equal(await (await fetch(s.at('/resources/caught'))).text(), 'caught RangeError');
});

t.test('a value nested too deeply is refused by zput with a TypeError', async (t) => {
  const res = await fetch(s.at('/resources/nested'));
  t.equal(res.status, 500);
  t.match(await body(res), { detail: /^TypeError: zput\("\/request\/json\/output"\): the value is nested deeper than 100 levels/ });
});

t.test('runtime calls at the bottom of a deep stack keep working until the stack runs out', async (t) => {
  const res = await fetch(s.at('/resources/deepcall'));
  t.equal(res.status, 200);
  t.match(await res.text(), /\[object Object\].* survived$/);
});
