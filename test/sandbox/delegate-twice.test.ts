// Attack: calling delegate() twice, to run the default handler's side effects twice or write a second response.

import t from 'tap';
import { send } from '../helpers/server.ts';
import { body, eventually, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { twice: PEOPLE, caught: PEOPLE },
    resources: {
      // Uncaught: the first response stands, the second call is logged as the handler's error.
      'twice.ts': 'export function onCreate() {\n  svc.delegate();\n  svc_delegate();\n}\nexport function onList() { svc.delegate(); }\n',
      // Caught: the handler sees an Error with a clear message.
      'caught.ts': [
        'export function onCreate() {',
        '  svc.delegate();',
        "  try { svc.delegate(); } catch (e) { console.log('second call:', (e as Error).message); }",
        '}',
        'export function onList() { svc.delegate(); }',
      ].join('\n'),
    },
  },
  { dev: true },
);
t.teardown(() => s.close());

t.test('the second delegate() throws; the first response stands and nothing is created twice', async (t) => {
  const res = await send(s.at('/resources/twice'), 'POST', { name: 'Once' });
  t.equal(res.status, 201);
  t.match(await body(res), { id: 1, name: 'Once' });
  const all = await body(await fetch(s.at('/resources/twice')));
  t.equal(all.length, 1, 'one member, not two');
  t.ok(await eventually(() => s.log.some((l) => l.includes('twice create] handler threw Error: svc.delegate(): delegate() already completed this response'))));
});

t.test('a handler may catch the error of the second call', async (t) => {
  const res = await send(s.at('/resources/caught'), 'POST', { name: 'Once' });
  t.equal(res.status, 201);
  t.ok(await eventually(() => s.log.some((l) => l.endsWith('caught create] log: second call: svc.delegate(): delegate() already completed this response'))));
  t.equal((await body(await fetch(s.at('/resources/caught')))).length, 1);
});
