// The handler examples of the README, run as they are written: one app made of its `// resources/…` code blocks.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT, send } from '../helpers/server.ts';
import { body, eventually, sandboxServer } from './harness.ts';

const doc = readFileSync(join(ROOT, 'README.md'), 'utf8');
const files: Record<string, string> = {};
for (const [, code] of doc.matchAll(/```ts\n([\s\S]*?)```/g)) {
  const m = /^\/\/ (resources\/\S+\.ts)\n/.exec(code!);
  if (m) files[m[1]!] = code!;
}

const employees = { fields: { name: { type: 'string', required: true } } };
const departments = { fields: { name: { type: 'string', required: true }, budget: { type: 'integer' } } };
const invoices = { fields: { customer: { type: 'string', required: true }, status: { type: 'string' } } };
const s = await sandboxServer({ models: { employees, departments, invoices }, files });
t.teardown(() => s.close());

t.test('the documentation has one example of each form', async (t) => {
  t.same(Object.keys(files).sort(), ['resources/departments.ts', 'resources/employees.ts', 'resources/invoices.ts', 'resources/lib/invoices.ts']);
});

t.test('form 1: the top-level script', async (t) => {
  const created = await send(s.at('/resources/employees'), 'POST', { name: 'Ada' });
  t.equal(created.status, 201);
  t.equal(created.headers.get('x-audited'), 'yes');
  const del = await fetch(s.at('/resources/employees/1'), { method: 'DELETE' });
  t.equal(del.status, 403);
  t.match(await body(del), { detail: 'Employees are never deleted.', code: 'handler-reported' });
});

t.test('form 2: event functions', async (t) => {
  for (const [name, budget] of [['small', 1], ['large', 100]] as const) await send(s.at('/resources/departments'), 'POST', { name, budget });
  t.same((await body(await fetch(s.at('/resources/departments')))).map((d: { name: string }) => d.name), ['large', 'small']);
  t.equal((await fetch(s.at('/resources/departments/1'))).status, 200);
  t.ok(await eventually(() => s.log.some((l) => l.endsWith('departments retrieve] log: retrieved department small'))));
  t.equal((await fetch(s.at('/resources/departments/1'), { method: 'DELETE' })).status, 405);
});

t.test('form 3: a class from an imported file', async (t) => {
  const created = await send(s.at('/resources/invoices'), 'POST', { customer: 'ACME' });
  t.equal(created.status, 201);
  t.match(await body(created), { customer: 'ACME', status: 'draft' });
  const list = await fetch(s.at('/resources/invoices'));
  t.equal(list.status, 405);
  t.equal(list.headers.get('allow'), 'POST');
});
