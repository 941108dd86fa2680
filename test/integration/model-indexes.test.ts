// A model's declared compound indexes (README "Models", `indexes`) over HTTP: lists answer the same
// with and without them, a bad declaration is a model error that says what to fix, and a changed
// file takes effect at the next request.

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

const fields = { name: { type: 'string' }, born: { type: 'date' } };
const server = await appServer(t, {
  models: { people: { fields } },
  resources: { 'people.ts': 'svc.delegate();\n' },
});

const LIST = '/resources/people?name__startswith=a&born__day=5&order_by=-name&count=3';
const list = async () => {
  const res = await fetch(server.at(LIST));
  return { status: res.status, total: res.headers.get('x-total-count'), names: ((await res.json()) as { name: string }[]).map((m) => m.name) };
};

t.test('the same answers with and without the index; a bad declaration names what is wrong', async (t) => {
  for (let i = 0; i < 40; i++) {
    const res = await send(server.at('/resources/people'), 'POST', { name: `${'ab'[i % 2]}${String(i).padStart(2, '0')}`, born: `1990-0${1 + (i % 3)}-0${1 + (i % 5)}` });
    t.equal(res.status, 201);
  }
  const without = await list();
  t.same(without, { status: 200, total: '4', names: ['a34', 'a24', 'a14'] });

  server.write('models/people.json', JSON.stringify({ fields, indexes: [['born__day', 'name']] }));
  t.same(await list(), without, 'declared: the same members, order and total');

  server.write('models/people.json', JSON.stringify({ fields, indexes: [['born__dya', 'name']] }));
  const res = await fetch(server.at(LIST));
  t.equal(res.status, 500);
  const problem = (await res.json()) as { code: string; detail: string };
  t.equal(problem.code, 'model-invalid');
  t.match(problem.detail, /indexes\.0\.0: "born__dya" is not a field or a part of one \(parts: __month, __day\)$/, 'only what is wrong');

  server.write('models/people.json', JSON.stringify({ fields }));
  t.same(await list(), without, 'removed again: served as before');
});
