// delegate() and echo() are sent to the host one-way (runtime/prelude.js): the handler goes on
// without waiting for them. When the host refuses one (a call over the payload cap, headers it
// cannot send), that failure is the handler's: the request is a 500 `handler-error` saying why,
// never a 204 or a 2xx for a write that was not done, and the handler's next runtime call throws
// it. A handler that set 300 headers and delegated a create was answered 204, and nothing was stored.

import t from 'tap';
import { send } from '../helpers/server.ts';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { people: PEOPLE, out: PEOPLE },
    resources: {
      'people.ts': [
        "const how = zget('/request/params/how');",
        "zdelete('/request/params/how');",
        "if (how === 'big-body' || how === 'caught') zput('/request/body', { ...(zget('/request/body') as object), pad: 'x'.repeat(5 * 1024 * 1024) });",
        "if (how === 'big-header') zput('/request/headers/out/x-big', 'v'.repeat(5 * 1024 * 1024));",
        "if (how === 'headers') for (let i = 0; i < 300; i++) zput('/request/headers/out/x-h' + i, 'v');",
        'svc.delegate();',
        "if (how === 'caught') { try { zget('/event/resource/member'); } catch (e) { console.log('caught:', (e as Error).message); } }",
      ].join('\n'),
      'out.ts': [
        "if (zget('/request/params/how') === 'big-header') zput('/request/headers/out/x-big', 'v'.repeat(5 * 1024 * 1024));",
        "echo('hello');",
        "if (zget('/request/params/how') === 'twice') echo(' again');",
      ].join('\n'),
    },
  },
  { dev: true },
);
t.teardown(() => s.close());

async function stored(): Promise<string[]> {
  return (await body(await fetch(s.at('/resources/people')))).map((m: { name: string }) => m.name);
}

t.test('a delegated create the host refused is a 500 saying why, and nothing is stored', async (t) => {
  for (const how of ['big-body', 'big-header', 'caught']) {
    const res = await send(s.at(`/resources/people?how=${how}`), 'POST', { name: how });
    t.equal(res.status, 500, how);
    const problem = await body(res);
    t.equal(problem.code, 'handler-error', how);
    t.match(problem.detail, /over 4194304 characters as JSON/, `${how}: the detail says what was refused`);
  }
  t.same(await stored(), [], 'nothing was stored');
  t.ok(s.log.some((l) => /handler threw Error: svc: the data of this call is over/.test(l)), 'the log says so');
  t.ok(s.log.some((l) => /caught: svc: the data of this call is over/.test(l)), "the handler's next runtime call threw it");
});

t.test('more response headers than the host sends are refused where they are set', async (t) => {
  const res = await send(s.at('/resources/people?how=headers'), 'POST', { name: 'headers' });
  t.equal(res.status, 500);
  t.match((await body(res)).detail, /at most 200/);
  t.same(await stored(), []);
  t.equal((await send(s.at('/resources/people'), 'POST', { name: 'plain' })).status, 201, 'a create within the limits is stored');
  t.same(await stored(), ['plain']);
});

t.test('an echo the host refused is a 500, not an empty 204 or the output after it', async (t) => {
  const res = await fetch(s.at('/resources/out?how=big-header'));
  t.equal(res.status, 500);
  t.match(await body(res), { code: 'handler-error', detail: /over 4194304 characters as JSON/ });
  const ok = await fetch(s.at('/resources/out?how=twice'));
  t.equal(ok.status, 200);
  t.equal(await ok.text(), 'hello again');
});
