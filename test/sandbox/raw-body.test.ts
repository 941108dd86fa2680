// `/request/rawBody`: the body as the client sent it, as text, on every event (README "Context
// keys"). Events whose body the server does not parse (postMember, putCollection, deleteCollection,
// delete) had no key holding it, though the README says they "pass the body and its headers to the
// handler as sent": an onPostMember could not read what was posted.

import t from 'tap';
import { send } from '../helpers/server.ts';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { people: PEOPLE },
  resources: {
    'people.ts': `
      function answer() {
        const raw = zget('/request/rawBody');
        let put;
        try {
          zput('/request/rawBody', 'x');
        } catch (e) {
          put = e.name;
        }
        zput('/request/json/output', { raw: raw === undefined ? null : raw, type: typeof raw, has: zcontains('/request/rawBody'), put });
        render();
      }
      export function onPostMember() { answer(); }
      export function onPutCollection() { answer(); }
      export function onList() { answer(); }
      export function onCreate() {
        zput('/request/headers/out/x-raw-length', String(zget('/request/rawBody').length));
        svc.delegate();
      }`,
  },
});
t.teardown(() => s.close());

t.test('postMember and putCollection read what was sent, as sent', async (t) => {
  const text = '{ "action" : "approve",\n  "note": "ünïcode" }';
  for (const [method, path] of [['POST', '/resources/people/7'], ['PUT', '/resources/people']] as const) {
    const res = await fetch(s.at(path), { method, headers: { 'content-type': 'application/json' }, body: text });
    t.same(await body(res), { raw: text, type: 'string', has: true, put: 'TypeError' }, `${method} ${path}`);
  }
  const plain = await fetch(s.at('/resources/people/7'), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'a=1&b=2' });
  t.same(await body(plain), { raw: 'a=1&b=2', type: 'string', has: true, put: 'TypeError' }, 'any media type');
});

t.test('a request without a body has none', async (t) => {
  t.same(await body(await fetch(s.at('/resources/people'))), { raw: null, type: 'undefined', has: false, put: 'TypeError' });
});

t.test('create: the text beside the parsed member, for a signature over the bytes', async (t) => {
  const text = '{"name":  "Ada"}';
  const res = await send(s.at('/resources/people'), 'POST', text);
  t.equal(res.status, 201);
  t.equal(res.headers.get('x-raw-length'), String(text.length));
});
