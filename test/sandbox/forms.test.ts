// The three handler forms of SPEC §8 against a real server: top-level script, event functions, class dispatch.

import t from 'tap';
import { send } from '../helpers/server.ts';
import { body, eventually, fixtureServer } from './harness.ts';

const s = await fixtureServer('forms');
t.teardown(() => s.close());

t.test('a top-level script runs on every request and branches on /event/_name', async (t) => {
  const created = await send(s.at('/resources/scripted'), 'POST', { name: 'Ann' });
  t.equal(created.status, 201);
  t.equal(created.headers.get('x-form'), 'script', 'logic before delegate() shapes the response');
  const list = await fetch(s.at('/resources/scripted'));
  t.equal(list.status, 200);
  t.match(await body(list), [{ name: 'Ann' }]);
  const other = await fetch(s.at('/resources/scripted'), { method: 'DELETE' });
  t.equal(other.status, 200);
  t.equal(await other.text(), 'DELETE deleteCollection');
});

t.test('event functions declared at the top level, not exported', async (t) => {
  const list = await fetch(s.at('/resources/functions'));
  t.equal(list.status, 200);
  t.equal(list.headers.get('x-form'), 'functions');
  const one = await fetch(s.at('/resources/functions/5'));
  t.equal(await one.text(), 'retrieve 5');
});

t.test('an event the functions do not implement is 405 with Allow for that kind of target', async (t) => {
  const member = await fetch(s.at('/resources/functions/5'), { method: 'DELETE' });
  t.equal(member.status, 405);
  t.equal(member.headers.get('allow'), 'GET, HEAD');
  t.match(await body(member), { code: 'method-not-allowed', status: 405 });
  const collection = await fetch(s.at('/resources/functions'), { method: 'PUT' });
  t.equal(collection.status, 405);
  t.equal(collection.headers.get('allow'), 'GET, POST, HEAD');
  // A method no event maps is answered before any handler code runs: which events the functions
  // implement is the dispatch's to say (above), so every method of that kind of target is listed.
  for (const path of ['/resources/functions/5', '/resources/functions']) {
    const patch = await fetch(s.at(path), { method: 'PATCH' });
    t.equal(patch.status, 405, path);
    t.equal(patch.headers.get('allow'), 'GET, PUT, POST, DELETE, HEAD', path);
  }
});

t.test('exported event functions, async ones awaited', async (t) => {
  const created = await body(await send(s.at('/resources/exported'), 'POST', { name: 'Bo' }));
  const one = await fetch(s.at(`/resources/exported/${created.id}`));
  t.equal(one.status, 200);
  t.match(await body(one), { name: 'Bo' });
  t.ok(await eventually(() => s.log.some((l) => /exported retrieve\] log: async retrieve of Bo/.test(l))), 'code after an await still runs');
  const list = await fetch(s.at('/resources/exported'));
  t.equal(await list.text(), 'async list');
});

t.test('a class named like the collection, instantiated per dispatch after the top level ran', async (t) => {
  const created = await send(s.at('/resources/employees'), 'POST', { name: 'Cy' });
  t.equal(created.status, 201);
  for (let i = 0; i < 2; i++) {
    const one = await fetch(s.at('/resources/employees/1'));
    t.equal(await one.text(), 'hello #1', 'module state starts fresh on every request');
  }
  const del = await fetch(s.at('/resources/employees/1'), { method: 'DELETE' });
  t.equal(del.status, 405);
  t.equal(del.headers.get('allow'), 'GET, HEAD');
});

t.test('class and method names match in any case', async (t) => {
  t.equal(await (await fetch(s.at('/resources/mixedcase'))).text(), 'ONLIST');
  t.equal(await (await fetch(s.at('/resources/mixedcase/7'))).text(), 'onretrieve 7');
});

t.test('the default export as the class, with bare event names as methods', async (t) => {
  t.equal(await (await fetch(s.at('/resources/defaultclass'))).text(), 'default class list');
  const del = await fetch(s.at('/resources/defaultclass/3'), { method: 'DELETE' });
  t.equal(del.status, 204);
  const put = await send(s.at('/resources/defaultclass/3'), 'PUT', { name: 'x' });
  t.equal(put.status, 405);
  t.equal(put.headers.get('allow'), 'DELETE');
  const patch = await fetch(s.at('/resources/defaultclass/3'), { method: 'PATCH' });
  t.equal(patch.status, 405);
  // A method no event maps is answered before any handler code runs, so every method of a member
  // is listed (as for the event functions above).
  t.equal(patch.headers.get('allow'), 'GET, PUT, POST, DELETE, HEAD', 'a method no event maps: every method of a member');
});

t.test('a class imported from another file of the app', async (t) => {
  const res = await fetch(s.at('/resources/imported'));
  t.equal(res.status, 200);
  t.equal(await res.text(), 'IMPORTED CLASS!');
  t.equal(res.headers.get('x-top-level'), 'ran', 'the importing script\'s top level ran first');
});

t.test('HEAD is served by the GET event without a body', async (t) => {
  const res = await fetch(s.at('/resources/mixedcase'), { method: 'HEAD' });
  t.equal(res.status, 200);
  t.equal(await res.text(), '');
});
