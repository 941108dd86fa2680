// The `error` view's title (README "Responses": the error view "sends an application/problem+json
// problem with /request/status (default 500), the status's title"; SPEC §11: the same shape as the
// server's problems, whose `type` is `about:blank`, so that RFC 9457 §4.2.1 has the title be the
// status's reason phrase). Only the statuses of a short table had theirs: a handler's 417, 418,
// 423, 428, 504, 507 or 302 said "Bad Request", "Internal Server Error" or "OK" in the problem
// while the status line said "Expectation Failed", "Gateway Timeout", "Found".

import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { people: PEOPLE },
  resources: {
    'people.ts': `
      zput('/request/status', Number(zget('/request/params/status')));
      zput('/request/view', 'error');
      render();`,
  },
});
t.teardown(() => s.close());

const TITLES: Record<number, string> = {
  302: 'Found',
  402: 'Payment Required',
  404: 'Not Found',
  413: 'Content Too Large',
  417: 'Expectation Failed',
  423: 'Locked',
  428: 'Precondition Required',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  504: 'Gateway Timeout',
  507: 'Insufficient Storage',
};

t.test("the error view's title is its status's reason phrase, as the status line's is", async (t) => {
  for (const [status, title] of Object.entries(TITLES)) {
    const res = await fetch(s.at(`/resources/people?status=${status}`), { redirect: 'manual' });
    t.equal(res.status, Number(status));
    t.equal(res.statusText, title, `status line of ${status}`);
    const body = (await res.json()) as Record<string, unknown>;
    t.equal(body.title, title, `problem title of ${status}`);
    t.equal(body.detail, title, 'without a message, the detail is the title');
    t.equal(body.code, 'handler-reported');
  }
});

t.test('a status without a registered phrase keeps a title of its class', async (t) => {
  const res = await fetch(s.at('/resources/people?status=499'));
  t.equal(res.status, 499);
  t.equal(((await res.json()) as Record<string, unknown>).title, 'Bad Request');
  const server = await fetch(s.at('/resources/people?status=599'));
  t.equal(((await server.json()) as Record<string, unknown>).title, 'Internal Server Error');
});
