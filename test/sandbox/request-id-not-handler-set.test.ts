// X-Request-Id is the server's (README "Request ids": the id is sent back in X-Request-Id, is in
// every log record of the request and is the requestId of every problem). A handler could set or
// delete it through /request/headers/out/x-request-id: the client was sent an id no log record had.

import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { people: PEOPLE },
  resources: {
    'people.ts': `
      export function onList() {
        const tried = [];
        for (const f of [() => zput('/request/headers/out/x-request-id', 'forged'), () => zdelete('/request/headers/out/X-Request-Id')]) {
          try {
            f();
            tried.push('accepted');
          } catch (e) {
            tried.push(e.name + ': ' + e.message);
          }
        }
        zput('/request/json/output', { tried, seen: zget('/request/headers/out/x-request-id') });
        render();
      }`,
  },
});
t.teardown(() => s.close());

t.test('a handler can read X-Request-Id, and neither set nor remove it', async (t) => {
  const res = await fetch(s.at('/resources/people'), { headers: { 'x-request-id': 'abc-123' } });
  t.equal(res.headers.get('x-request-id'), 'abc-123', 'the request\u2019s own id is sent back');
  const out = (await res.json()) as { tried: string[]; seen: string };
  t.equal(out.seen, 'abc-123');
  t.same(out.tried, [
    'TypeError: zput("/request/headers/out/x-request-id"): the server sets x-request-id; a handler cannot',
    'TypeError: zdelete("/request/headers/out/X-Request-Id"): the server sets x-request-id; a handler cannot',
  ]);
});
