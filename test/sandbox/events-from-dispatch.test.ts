// Which events a handler implements is the guest's dispatch's to say (runtime/prelude.js), not the
// text scan of its bundle that OpenAPI and CORS use (compile.ts declaredEvents): a 405 given before
// the body on that scan's word told handlers that create (class methods in any case, a top-level
// script) that they did not. A body the server cannot take is refused as such (README "Handler scripts").

import t from 'tap';
import { PEOPLE, sandboxServer } from '../sandbox/harness.ts';

const s = await sandboxServer({
  models: { a: PEOPLE, b: PEOPLE, c: PEOPLE, d: PEOPLE },
  resources: {
    // Class dispatch matches `onCreate` or `create`, any case (SPEC §8 form 3): create IS implemented.
    'a.ts': `export default class { onList() { svc.delegate(); } create() { svc.delegate(); } }`,
    'b.ts': `export default class { onList() { svc.delegate(); } ONCREATE() { svc.delegate(); } }`,
    // A top-level script (form 1): it serves every event; an object literal's method is no event function.
    'c.ts': `const hooks = { onList() { return 1; } };\nhooks.onList();\nsvc.delegate();`,
    // Both forms: the class wins (README), and it has no create.
    'd.ts': `export class D { onList() { svc.delegate(); } }\nexport function onCreate() { svc.delegate(); }`,
  },
});
t.teardown(() => s.close());

const post = (c: string, type: string, body: string) => fetch(s.at(`/resources/${c}`), { method: 'POST', headers: { 'content-type': type }, body });

for (const c of ['a', 'b', 'c']) {
  t.test(`${c}: the handler serves create`, async (t) => {
    const good = await post(c, 'application/json', '{"name":"x"}');
    t.equal(good.status, 201, 'a good body is created: the handler implements create');
    const bad = await post(c, 'application/json', '{"name":');
    const problem = (await bad.json()) as { code: string };
    t.equal(bad.status, 400, `a bad body to a handler that serves create is 400 invalid-json (got ${bad.status} ${problem.code}, Allow ${bad.headers.get('allow')})`);
  });
}

t.test('d: the class wins and has no create', async (t) => {
  const good = await post('d', 'application/json', '{"name":"x"}');
  t.equal(good.status, 405, 'a good body: 405 (the class wins)');
  const plain = await post('d', 'text/plain', 'x');
  t.equal(plain.status, 415, 'a body the server cannot take is refused as such, before any script runs');
});

// A method no event maps (PATCH) is 405 before any handler code runs: its Allow must not leave out
// what the handler serves on the scan's word. Here the scan sees `onList` alone, and POST creates.
for (const c of ['a', 'b', 'c']) {
  t.test(`${c}: a method no event maps lists the methods the handler serves`, async (t) => {
    const patch = await fetch(s.at(`/resources/${c}`), { method: 'PATCH' });
    t.equal(patch.status, 405);
    const allow = patch.headers.get('allow')!.split(', ');
    t.ok(allow.includes('POST'), `Allow ${patch.headers.get('allow')} has POST, which creates (201 above)`);
  });
}
