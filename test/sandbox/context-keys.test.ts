// Every context key and runtime call of SPEC §8 against a real server.

import t from 'tap';
import { send } from '../helpers/server.ts';
import { body, eventually, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { people: PEOPLE, things: PEOPLE, pets: PEOPLE },
    resources: {
      // Reports what the request keys hold.
      'people.ts': `
        const KEYS = ['/request/method', '/request/path', '/request/params/peopleId', '/request/params/q',
          '/request/headers/in/x-test', '/request/headers/in/X-Test', '/request/body', '/request/status',
          '/request/view', '/request/json/output', '/request/error/message', '/event/_name', '/event/pathInfo',
          '/event/resource/member', '/event/resource/collection', '/mine', '/request/nothing'];
        function report() {
          const out: Record<string, unknown> = {};
          for (const k of KEYS) out[k] = zcontains(k) ? zget(k) : '<unset>';
          zput('/request/json/output', out);
          render();
        }
        export const onRetrieve = report;
        export const onList = report;
        export const onUpdate = report;
        export const onPostMember = report;`,
      // Logic before and after delegate().
      'things.ts': `
        export function onList() {
          if (zdelete('/request/params/mine')) zput('/request/params/name', 'ANN'); // a forced filter
          zput('/request/headers/out/x-before', 'kept');
          zput('/request/status', 299);
          svc.delegate();
          const listed = zget('/event/resource/collection') as { name: string }[];
          console.log('after', zget('/request/status'), listed.map((m) => m.name).join(','), zget('/request/headers/out/x-total-count'));
        }
        export function onCreate() {
          const b = zget('/request/body') as Record<string, unknown>;
          zput('/request/body', { ...b, name: String(b.name).toUpperCase(), age: 42 });
          svc_delegate();
          const m = zget('/event/resource/member') as { id: number; name: string };
          console.warn('created', m.id, m.name, zget('/request/status'), zget('/request/headers/out/location'));
        }
        export function onRetrieve() {
          svc.delegate();
          console.error('retrieved', JSON.stringify(zget('/event/resource/member')), zget('/request/status'));
        }`,
      // Views, aliases, own keys, read-only keys, the model API.
      'pets.ts': `
        export function onList() {
          const view = zget('/request/params/view');
          if (view === 'json') {
            zput('/request/status', 202);
            zput('/request/json/output', { ok: true, when: new Date(0) });
            render();
          } else if (view === 'error') {
            zput('/request/view', 'error');
            if (zget('/request/params/status')) zput('/request/status', Number(zget('/request/params/status')));
            if (zget('/request/params/message')) zput('/request/error/message', zget('/request/params/message'));
            zput('/request/headers/out/x-why', 'handler');
            svc.render();
          } else if (view === 'aliases') {
            svc.put('/mine', { a: [1, 2] });
            const copy = svc.get('/mine') as { a: number[] };
            copy.a.push(3); // a copy: the stored value is unchanged
            const had = svc.contains('/mine');
            const deleted = svc.delete('/mine');
            echo(JSON.stringify({ copy, had, deleted, after: svc.contains('/mine'), stored: zget('/mine') ?? null }));
          } else if (view === 'readonly') {
            zput(String(zget('/request/params/key')), 'x');
          } else if (view === 'model') {
            const people = svc.collection('people');
            const a = people.create({ name: 'Ann', age: 30 });
            people.create({ name: 'Bob', age: 40 });
            let invalid = '';
            try { people.create({ name: 'x'.repeat(60), age: 'old' }); } catch (e) { invalid = (e as Error).message; }
            const out = {
              a,
              list: people.list({ age__gte: 35 }).map((m) => m.name),
              count: people.count(),
              countFiltered: people.count({ name__startswith: 'A' }),
              retrieved: people.retrieve(String(a.id))?.name,
              missing: people.retrieve(999),
              updated: people.update(a.id, { name: 'Anna', age: 31 })?.name,
              updatedMissing: people.update(999, { name: 'Nobody' }),
              deleted: people.delete(a.id),
              deletedAgain: people.delete(a.id),
              invalid,
            };
            echo(JSON.stringify(out));
          }
        }`,
    },
  },
  { dev: true },
);
t.teardown(() => s.close());

t.test('request keys: method, path, params (first value, <collection>Id), headers, path info, event', async (t) => {
  const res = await fetch(s.at('/resources/people/5/extra/path?q=1&q=2'), { headers: { 'X-Test': 'yes' } });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.same(await body(res), {
    '/request/method': 'GET',
    '/request/path': '/resources/people/5/extra/path',
    '/request/params/peopleId': '5',
    '/request/params/q': '1',
    '/request/headers/in/x-test': 'yes',
    '/request/headers/in/X-Test': 'yes',
    '/request/body': '<unset>',
    '/request/status': '<unset>',
    '/request/view': '<unset>',
    '/request/json/output': '<unset>',
    '/request/error/message': '<unset>',
    '/event/_name': 'retrieve',
    '/event/pathInfo': '/extra/path',
    '/event/resource/member': '<unset>',
    '/event/resource/collection': '<unset>',
    '/mine': '<unset>',
    '/request/nothing': '<unset>',
  });
});

t.test('keys that do not apply are unset: no path info, no member id on a collection', async (t) => {
  const one = await body(await fetch(s.at('/resources/people/5')));
  t.equal(one['/event/pathInfo'], '<unset>');
  const list = await body(await fetch(s.at('/resources/people')));
  t.equal(list['/request/params/peopleId'], '<unset>');
  t.equal(list['/event/_name'], 'list');
});

t.test('/request/body holds the parsed member of update; other events have none', async (t) => {
  const res = await body(await send(s.at('/resources/people/3'), 'PUT', { name: 'Zed', age: 9 }));
  t.same(res['/request/body'], { name: 'Zed', age: 9 });
  t.equal(res['/event/_name'], 'update');
  t.equal(res['/request/method'], 'PUT');
  const post = await body(await send(s.at('/resources/people/3'), 'POST', { name: 'Zed' }));
  t.equal(post['/event/_name'], 'postMember');
  t.equal(post['/request/body'], '<unset>');
});

t.test('logic before delegate(): a forced filter parameter, a header; the default handler sets the status', async (t) => {
  for (const name of ['Ann', 'Bob', 'Ann']) await send(s.at('/resources/things'), 'POST', { name: name.toLowerCase() });
  const all = await fetch(s.at('/resources/things'));
  t.equal(all.status, 200, "the default handler's status wins over one set before delegating");
  t.equal(all.headers.get('x-before'), 'kept');
  t.equal((await body(all)).length, 3);
  const mine = await fetch(s.at('/resources/things?mine=yes'));
  t.equal(mine.headers.get('x-total-count'), '2');
  t.same((await body(mine)).map((m: { name: string }) => m.name), ['ANN', 'ANN']);
  t.ok(await eventually(() => s.log.some((l) => l.endsWith('things list] log: after 200 ANN,ANN 2'))), '/event/resource/collection, status and headers after delegate()');
});

t.test('/request/body changed before delegate() is what gets created; the member is available after', async (t) => {
  const res = await send(s.at('/resources/things'), 'POST', { name: 'cy' });
  t.equal(res.status, 201);
  const created = await body(res);
  t.match(created, { name: 'CY', age: 42 });
  t.ok(
    await eventually(() => s.log.some((l) => l.includes(`things create] warn: created ${created.id} CY 201 ${s.at(`/resources/things/${created.id}`)}`))),
    '/event/resource/member, /request/status and Location after delegate()',
  );
});

t.test('delegate() renders the default handler\'s error itself: a missing member is 404', async (t) => {
  const res = await fetch(s.at('/resources/things/999'));
  t.equal(res.status, 404);
  t.match(await body(res), { code: 'member-not-found' });
  t.ok(await eventually(() => s.log.some((l) => l.endsWith('things retrieve] error: retrieved undefined 404'))), 'no member after a failed delegate()');
});

t.test('after a retrieve delegate(), /event/resource/member is the member the response holds (read as its stored JSON text)', async (t) => {
  const created = await body(await fetch(s.at('/resources/things'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'zoë 😀' }) }));
  const res = await fetch(s.at(`/resources/things/${created.id}`));
  t.equal(res.status, 200);
  const text = await res.text();
  t.same(JSON.parse(text), created);
  t.ok(await eventually(() => s.log.some((l) => l.endsWith(`things retrieve] error: retrieved ${text} 200`))), 'the handler saw the same member');
});

t.test('the JSON view renders /request/json/output with the status set', async (t) => {
  const res = await fetch(s.at('/resources/pets?view=json'));
  t.equal(res.status, 202);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.same(await body(res), { ok: true, when: '1970-01-01T00:00:00.000Z' });
});

t.test('the error view renders a problem with /request/status and /request/error/message', async (t) => {
  const res = await fetch(s.at('/resources/pets?view=error&status=404&message=No+such+pet'));
  t.equal(res.status, 404);
  t.equal(res.headers.get('content-type'), 'application/problem+json');
  t.equal(res.headers.get('x-why'), 'handler', "the handler's headers are kept");
  t.same(await body(res), { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No such pet', code: 'handler-reported', requestId: res.headers.get('x-request-id') });
  const plain = await fetch(s.at('/resources/pets?view=error'));
  t.equal(plain.status, 500, 'status defaults to 500');
  t.match(await body(plain), { title: 'Internal Server Error', status: 500, code: 'handler-reported' });
});

t.test('svc.get/put/contains/delete are zget/zput/zcontains/zdelete; values are copies', async (t) => {
  const res = await fetch(s.at('/resources/pets?view=aliases'));
  t.same(await body(res), { copy: { a: [1, 2, 3] }, had: true, deleted: true, after: false, stored: null });
});

t.test('read-only and unknown keys throw a TypeError', async (t) => {
  for (const key of ['/request/method', '/request/path', '/request/headers/in/accept', '/event/_name', '/event/resource/member', '/request/nonsense', '/event/other']) {
    const res = await fetch(s.at(`/resources/pets?view=readonly&key=${encodeURIComponent(key)}`));
    t.equal(res.status, 500, key);
    t.match(await body(res), { code: 'handler-error', detail: /^TypeError: zput\(.*\): .*(read-only|no context key)/ }, key);
  }
});

t.test('the model API: list, count, retrieve, create, update, delete; errors name the fields', async (t) => {
  const res = await fetch(s.at('/resources/pets?view=model'));
  t.equal(res.status, 200);
  const out = await body(res);
  t.match(out.a, { id: Number, name: 'Ann', age: 30 });
  t.same(out.list, ['Bob']);
  t.equal(out.countFiltered, 1);
  t.equal(out.retrieved, 'Ann', 'ids may be numeric strings');
  t.equal(out.missing, null);
  t.equal(out.updated, 'Anna');
  t.equal(out.updatedMissing, null);
  t.equal(out.deleted, true);
  t.equal(out.deletedAgain, false);
  t.match(out.invalid, /name/);
  t.match(out.invalid, /age/);
});

t.test('console output goes to the server log tagged with app, collection and event', async (t) => {
  t.ok(s.log.some((l) => /^svc: \[app\/things list\] log: after /.test(l)));
});
