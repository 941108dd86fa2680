// What render() and delegate() do after echo() (README "Responses"): delegate() throws (the
// default handler answers whole responses); render() appends the view's text to what was written,
// under the status and headers the first echo() sent.

import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { people: PEOPLE },
  resources: {
    'people.ts': `
      export function onList() {
        zput('/request/status', 202);
        zput('/request/headers/out/content-type', 'text/plain; charset=utf-8');
        echo('before ');
        zput('/request/status', 500);
        zput('/request/json/output', { after: true });
        render();
      }
      export function onRetrieve() {
        echo('written ');
        try {
          svc.delegate();
        } catch (e) {
          echo(String(e.message));
        }
      }`,
  },
});
t.teardown(() => s.close());

t.test('render() after echo(): the view appended, under the status and headers of the first echo', async (t) => {
  const res = await fetch(s.at('/resources/people'));
  t.equal(res.status, 202);
  t.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.equal(await res.text(), 'before {"after":true}');
});

t.test('delegate() after echo() throws, saying so', async (t) => {
  const res = await fetch(s.at('/resources/people/1'));
  t.equal(res.status, 200);
  t.equal(await res.text(), 'written svc.delegate(): output was already written; delegate before echo/write');
});
