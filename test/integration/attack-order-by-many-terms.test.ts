// Attack: `order_by` with thousands of terms. SQLite refuses more than 2000 ORDER BY terms, which
// was a 500; and each bad term was reported separately, so an 8 KiB URL of commas made a ~750 KB
// problem. A repeated field orders nothing new, and each distinct problem is reported once.

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

const server = await appServer(t, {
  models: { notes: { fields: { t: { type: 'string' }, r: { type: 'integer' } } } },
  resources: { 'notes.ts': 'svc.delegate();\n' },
});
for (const [t, r] of [['b', 2], ['a', 2], ['c', 1]] as const) await send(server.at('/resources/notes'), 'POST', { t, r });

t.test('thousands of repeated order_by terms order like the first of each field', async (t) => {
  for (const terms of [Array(2500).fill('-r'), Array.from({ length: 2400 }, (_, i) => (i % 2 ? 't' : '-r'))]) {
    const res = await send(server.at(`/resources/notes?order_by=${terms.join(',')}`), 'GET');
    t.equal(res.status, 200);
    const texts = ((await res.json()) as { t: string }[]).map((m) => m.t);
    t.same(texts, terms[1] === 't' ? ['a', 'b', 'c'] : ['b', 'a', 'c']);
  }
});

t.test('thousands of bad order_by terms are one short 400', async (t) => {
  for (const value of [','.repeat(8000), Array(2600).fill('x').join(',')]) {
    const res = await send(server.at(`/resources/notes?order_by=${value}`), 'GET');
    t.equal(res.status, 400);
    t.match(res.headers.get('content-type'), /^application\/problem\+json/);
    const text = await res.text();
    t.ok(text.length < 2000, `problem is ${text.length} bytes`);
    const problem = JSON.parse(text) as { code: string; errors: { parameter: string; message: string }[] };
    t.equal(problem.code, 'invalid-query');
    t.equal(problem.errors.length, 1);
    t.equal(problem.errors[0]!.parameter, 'order_by');
    t.match(problem.errors[0]!.message, /empty field name|unknown field "x"/);
  }
});

t.test('the server still answers', async (t) => {
  t.equal((await send(server.at('/resources/notes?order_by=t'), 'GET')).status, 200);
});
