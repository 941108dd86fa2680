// The `error` view rendered after echo() (README "Responses": the error view "sends an
// application/problem+json problem with /request/status (default 500), the status's title"; a
// render() after echo "appends the view's text to what was written, under the status and headers
// the first echo sent"). The problem appended must carry /request/status, not a 500 of its own:
// a handler that set 404, wrote, then rendered the error view sent a 404 whose problem said 500
// "Internal Server Error".

import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { people: PEOPLE },
  resources: {
    'people.ts': `
      export function onList() {
        zput('/request/status', 404);
        echo('note: ');
        zput('/request/view', 'error');
        zput('/request/error/message', 'gone');
        render();
      }
      export function onRetrieve() {
        echo('note: ');
        zput('/request/view', 'error');
        render();
      }`,
  },
});
t.teardown(() => s.close());

t.test('the problem appended after echo() has the status set before it, and its title', async (t) => {
  const res = await fetch(s.at('/resources/people'));
  t.equal(res.status, 404);
  const text = await res.text();
  t.ok(text.startsWith('note: '), 'what was written comes first');
  const problem = JSON.parse(text.slice('note: '.length));
  t.match(problem, { type: 'about:blank', title: 'Not Found', status: 404, detail: 'gone', code: 'handler-reported' });
});

t.test('with no status set, the appended problem still defaults to 500', async (t) => {
  const res = await fetch(s.at('/resources/people/1'));
  t.equal(res.status, 200, 'the status the first echo sent');
  const text = await res.text();
  t.match(JSON.parse(text.slice('note: '.length)), { title: 'Internal Server Error', status: 500, code: 'handler-reported' });
});
