// delegate() is sent to the host one-way (runtime/prelude.js): a handler that ends by delegating
// never waits for it, and one that uses the runtime afterwards waits for its result first. Whatever
// the handler does after delegate(), the default handler's response and its effects are those of
// a delegate() that completed where it was called.

import t from 'tap';
import { send } from '../helpers/server.ts';
import { body, eventually, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { after: PEOPLE },
    resources: {
      'after.ts': [
        'export function onCreate() {',
        "  const how = zget('/request/params/how');",
        '  svc.delegate();',
        "  if (how === 'throw') throw new Error('thrown after delegate');",
        "  if (how === 'reject') Promise.reject(new Error('rejected after delegate'));",
        "  if (how === 'spin') for (;;) {}",
        "  if (how === 'read') console.log('after delegate:', zget('/request/status'), zget('/request/headers/out/location'), (zget('/event/resource/member') as { name: string }).name);",
        '}',
        'export async function onRetrieve() {',
        '  await null;',
        '  svc.delegate();',
        '}',
        'export function onList() { svc.delegate(); }',
      ].join('\n'),
    },
  },
  // `spin` must break the CPU limit, not the wall limit.
  { dev: true, limits: { cpuLimitMs: 200, wallLimitMs: 60_000 } },
);
t.teardown(() => s.close());

async function names(): Promise<string[]> {
  return (await body(await fetch(s.at('/resources/after')))).map((m: { name: string }) => m.name);
}

t.test('what the handler does after delegate() does not undo or change the delegated response', async (t) => {
  for (const how of ['end', 'throw', 'reject', 'spin']) {
    const res = await send(s.at(`/resources/after?how=${how}`), 'POST', { name: how });
    t.equal(res.status, 201, how);
    t.match(await body(res), { name: how }, how);
  }
  t.same(await names(), ['end', 'throw', 'reject', 'spin'], 'every create happened, once');
  t.ok(await eventually(() => s.log.some((l) => l.includes('handler threw Error: thrown after delegate'))), 'the error after delegate() is logged');
  t.ok(await eventually(() => s.log.some((l) => l.endsWith('isolate replaced (cpu)'))), 'the spin broke the CPU limit after the response');
});

t.test('the runtime used after delegate() sees what the response became', async (t) => {
  const res = await send(s.at('/resources/after?how=read'), 'POST', { name: 'reader' });
  t.equal(res.status, 201);
  const id = (await body(res)).id;
  t.ok(await eventually(() => s.log.some((l) => l.endsWith(`/resources/after/${id} reader`) && l.includes('log: after delegate: 201 http://'))), 'status, headers and member');
});

t.test('an async handler that delegates last', async (t) => {
  const res = await fetch(s.at('/resources/after/1'));
  t.equal(res.status, 200);
  t.match(await body(res), { id: 1, name: 'end' });
  const missing = await fetch(s.at('/resources/after/999'));
  t.equal(missing.status, 404);
  t.equal((await body(missing)).code, 'member-not-found');
});
