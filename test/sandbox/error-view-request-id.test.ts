// README "Operations" (Request ids): a request's id "is the `requestId` member of every problem, so
// that a user can quote it"; SPEC §11: the `error` view renders "the same shape" as the server's
// problems. The error view's problem had no requestId.

import t from 'tap';
import { PEOPLE, sandboxServer } from '../sandbox/harness.ts';

const s = await sandboxServer({
  models: { pets: PEOPLE },
  resources: {
    'pets.ts': `
      zput('/request/status', 404);
      zput('/request/view', 'error');
      zput('/request/error/message', 'No such pet');
      render();`,
  },
});
t.teardown(() => s.close());

t.test("the error view's problem carries the request's id, as every problem does", async (t) => {
  const res = await fetch(s.at('/resources/pets'), { headers: { 'x-request-id': 'quote-me-42' } });
  t.equal(res.status, 404);
  t.equal(res.headers.get('x-request-id'), 'quote-me-42');
  const body = (await res.json()) as Record<string, unknown>;
  t.equal(body.code, 'handler-reported');
  t.equal(body.requestId, 'quote-me-42', 'requestId in the problem body');
  // A server-made problem of the same request path, for comparison: it has one.
  const other = await fetch(s.at('/resources/nope'), { headers: { 'x-request-id': 'quote-me-43' } });
  t.equal(((await other.json()) as Record<string, unknown>).requestId, 'quote-me-43');
});
