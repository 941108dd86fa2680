// SPEC §4: "The member id reaches the handler as request parameter `<collection>Id`
// (`/request/params/<collection>Id`)". A request parameter reads decoded (`?q=a%20b` is `a b`), but
// the id was the URL's segment as sent: `/resources/pages/a%20b` gave `a%20b`, so a handler keyed
// by names had to decode it itself, and `/resources/people/%31` was no member 1 for the default
// handler though it is the same URL as `/resources/people/1` (RFC 3986 §2.3, §6.2.2.2). The path
// info and `/request/path` stay as sent: decoding `%2F` there would make two paths one.

import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { pages: PEOPLE, people: PEOPLE },
  resources: {
    'pages.ts': `
      zput('/request/json/output', {
        id: zget('/request/params/pagesId') ?? null,
        pathInfo: zget('/event/pathInfo') ?? null,
        path: zget('/request/path'),
        q: zget('/request/params/q') ?? null,
      });
      render();`,
    'people.ts': 'svc.delegate();',
  },
});
t.teardown(() => s.close());

const json = async (path: string) => {
  const res = await fetch(s.at(path));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

t.test('<collection>Id reads percent-decoded, as a query parameter does', async (t) => {
  const { status, body } = await json('/resources/pages/a%20b?q=a%20b');
  t.equal(status, 200);
  t.equal(body.id, 'a b');
  t.equal(body.q, 'a b', 'the same text as a query parameter');
  t.equal((await json('/resources/pages/caf%C3%A9')).body.id, 'café', 'UTF-8 escapes are one character');
  t.equal((await json('/resources/pages/a%2Fb')).body.id, 'a/b', 'an encoded slash is part of the id');
  t.equal((await json('/resources/pages/a+b')).body.id, 'a+b', 'a + in a path is a +, not a space');
  t.equal((await json('/resources/pages/50%25')).body.id, '50%');
  t.equal((await json('/resources/pages/100%zz')).body.id, '100%zz', 'a % that starts no escape is taken literally, as in a query');
});

t.test('the path info and the path stay as sent', async (t) => {
  const { body } = await json('/resources/pages/a%20b/c%2Fd/%C3%A9');
  t.equal(body.id, 'a b');
  t.equal(body.pathInfo, '/c%2Fd/%C3%A9');
  t.equal(body.path, '/resources/pages/a%20b/c%2Fd/%C3%A9');
});

t.test('an id whose escapes are not UTF-8 is 400 invalid-query naming the parameter, as such a query parameter is', async (t) => {
  const { status, body } = await json('/resources/pages/%FF');
  t.equal(status, 400);
  t.equal(body.code, 'invalid-query');
  t.match(body.errors, [{ parameter: 'pagesId' }]);
  t.equal((await json('/resources/people/%E9t%E9')).status, 400, 'the default handler too');
});

t.test('the default handler finds a member by its id percent-encoded', async (t) => {
  const created = await fetch(s.at('/resources/people'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Ann"}' });
  t.equal(created.status, 201);
  const { id } = (await created.json()) as { id: number };
  const encoded = [...String(id)].map((d) => `%${d.charCodeAt(0).toString(16)}`).join('');
  const { status, body } = await json(`/resources/people/${encoded}`);
  t.equal(status, 200);
  t.equal(body.name, 'Ann');
  t.equal((await json('/resources/people/%30' + String(id))).status, 404, 'decoded, 01 is still not canonical');
});
