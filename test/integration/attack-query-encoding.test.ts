// Attack: a query string whose percent-escapes are not UTF-8. URLSearchParams decodes such bytes
// to U+FFFD, which then matched a stored U+FFFD: `name=fffe%FF` found the member named "fffe\uFFFD".
// Each such parameter is 400 invalid-query, for a list, a member and a handler's own event alike;
// escapes that are UTF-8, and a `%` that starts no escape, keep their meaning. Also the bound on
// `start` and `count` (15 digits), whose message says so.

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

const MODEL = { fields: { name: { type: 'string' } } };

interface Problem {
  code?: string;
  errors?: { parameter: string; message: string }[];
}

t.test('percent-escapes that are not UTF-8 are 400 invalid-query, naming each such parameter', async (t) => {
  const s = await appServer(t, {
    models: { things: MODEL, echoes: MODEL },
    resources: {
      'things.ts': 'svc.delegate();\n',
      'echoes.ts': "export function onRetrieve() { echo(String(zget('/request/params/q'))); }\n",
    },
  });
  t.equal((await send(s.at('/resources/things'), 'POST', { name: 'fffe\uFFFD' })).status, 201);
  t.equal((await send(s.at('/resources/things'), 'POST', { name: '€uro' })).status, 201);

  for (const [qs, parameters] of [
    ['name=fffe%FF', ['name']],
    ['name__startswith=fffe%C0', ['name__startswith']],
    ['name=%E2%82', ['name']],
    ['name=%ED%A0%80', ['name']], // a surrogate's UTF-8 form: not UTF-8
    ['n%61me=%FF&count=%C0%AF&start=1', ['name', 'count']],
    ['%FF=1', ['%FF']],
  ] as const) {
    const r = await fetch(s.at(`/resources/things?${qs}`));
    const problem = (await r.json()) as Problem;
    t.equal(r.status, 400, `?${qs}: 400`);
    t.equal(problem.code, 'invalid-query', `?${qs}: invalid-query`);
    t.same(problem.errors?.map((e) => e.parameter), parameters, `?${qs}: names ${parameters.join(', ')}`);
    t.match(problem.errors?.[0]?.message, /not UTF-8/, `?${qs}: says what is wrong`);
  }

  // On a member, and for a handler that reads the parameter itself.
  for (const path of ['/resources/things/1?x=%FF', '/resources/echoes/1?q=%FF']) {
    const r = await fetch(s.at(path));
    t.equal(r.status, 400, `${path}: 400`);
    t.equal(((await r.json()) as Problem).code, 'invalid-query', `${path}: invalid-query`);
  }

  // UTF-8 escapes, `+`, and a `%` that starts no escape keep their meaning.
  const euro = await fetch(s.at('/resources/things?name=%E2%82%ACuro'));
  t.equal(euro.status, 200);
  t.same(((await euro.json()) as { name: string }[]).map((m) => m.name), ['€uro']);
  const literal = await fetch(s.at('/resources/things?name=%zz'));
  t.equal(literal.status, 200, 'a % that starts no escape is taken literally');
  t.same(await literal.json(), []);
  const echoed = await fetch(s.at('/resources/echoes/1?q=a+%F0%9F%98%80'));
  t.equal(await echoed.text(), 'a 😀', 'a handler reads the decoded value');
});

t.test('start and count take at most 15 digits, and the message says so', async (t) => {
  const s = await appServer(t, { models: { things: MODEL }, resources: { 'things.ts': 'svc.delegate();\n' } });
  t.equal((await fetch(s.at('/resources/things?start=999999999999999'))).status, 200, '15 digits');
  for (const p of ['start', 'count']) {
    const r = await fetch(s.at(`/resources/things?${p}=1000000000000000`));
    t.equal(r.status, 400, `${p} of 16 digits: 400`);
    const problem = (await r.json()) as Problem;
    t.same(problem.errors, [{ parameter: p, message: 'must be a non-negative integer of at most 15 digits' }]);
  }
});
