// SPEC §8: "When a handler defines event functions or a class, an event it does not implement is
// 405 with Allow listing the methods it does implement"; seed: "When a handler implements only read
// events (list, retrieve), a POST, PUT or DELETE request returns 405 Method Not Allowed."
// The server parsed create/update bodies before it learned the handler does not serve the event,
// so a POST/PUT to a read-only handler was 415 or 400 depending on the body, not 405.

import t from 'tap';
import { PEOPLE, sandboxServer } from '../sandbox/harness.ts';

const s = await sandboxServer({
  models: { books: PEOPLE, notes: PEOPLE },
  resources: {
    'books.ts': `
      export function onList() { svc.delegate(); }
      export function onRetrieve() { svc.delegate(); }`,
    'notes.ts': `
      export function onCreate() { svc.delegate(); }`,
  },
});
t.teardown(() => s.close());

const cases: [string, string, Record<string, string>, string][] = [
  ['POST', '/resources/books', { 'content-type': 'application/json' }, '{"name":"ok"}'],
  ['POST', '/resources/books', { 'content-type': 'text/plain' }, 'hello'],
  ['POST', '/resources/books', { 'content-type': 'application/x-www-form-urlencoded' }, 'name=x'],
  ['POST', '/resources/books', { 'content-type': 'application/json' }, '{"name":'],
  ['PUT', '/resources/books/1', { 'content-type': 'text/csv' }, 'a,b'],
  ['PUT', '/resources/books/1', { 'content-type': 'application/atom+xml' }, '<feed/>'],
];

for (const [method, path, headers, body] of cases) {
  t.test(`${method} ${headers['content-type']} ${JSON.stringify(body)} to a read-only handler is 405`, async (t) => {
    const res = await fetch(s.at(path), { method, headers, body });
    const problem = (await res.json()) as { code: string };
    t.equal(res.status, 405, `got ${res.status} ${problem.code}`);
    t.equal(res.headers.get('allow'), 'GET, HEAD');
  });
}

t.test('a handler that serves the event still has its bad bodies refused as such', async (t) => {
  const res = await fetch(s.at('/resources/notes'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' });
  t.equal(res.status, 400);
  t.equal(((await res.json()) as { code: string }).code, 'invalid-json');
  const plain = await fetch(s.at('/resources/notes'), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
  t.equal(plain.status, 415);
});
