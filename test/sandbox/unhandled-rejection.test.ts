// Attack: a promise rejection left unhandled, which isolated-vm reports as a failure of the whole
// task; treated as a sandbox fault it replaced the isolate, so every such request made the host
// build a new isolate (about ten times the host CPU of a request) for free.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { reject: PEOPLE },
    resources: {
      'reject.ts': `
        const how = zget('/request/params/how');
        if (how === 'plain') Promise.reject(new Error('boom'));
        if (how === 'late') Promise.resolve().then(() => zget('/after/the/end'));
        if (how === 'rendered') { zput('/request/json/output', { ok: true }); render(); Promise.reject('after render'); }
        if (how === 'async') (async () => { throw new Error('floating'); })();
        if (how === undefined) echo('fine');`,
    },
  },
  { dev: true, limits: { maxIsolates: 1 } },
);
t.teardown(() => s.close());

const replaced = () => s.log.filter((l) => /isolate replaced/.test(l)).length;

t.test('an unhandled rejection is the handler error 500, and the isolate is kept', async (t) => {
  for (const [how, detail] of [
    ['plain', /unhandled promise rejection: boom/],
    ['late', /unhandled promise rejection: svc: the runtime API is available only while a request is served/],
    ['async', /unhandled promise rejection: floating/],
  ] as const) {
    const res = await fetch(s.at(`/resources/reject?how=${how}`));
    t.equal(res.status, 500, how);
    const problem = await body(res);
    t.equal(problem.code, 'handler-error', how);
    t.match(problem.detail, detail, how);
  }
  t.equal(replaced(), 0, 'no isolate was replaced');
  t.ok(s.log.some((l) => /reject list\] handler threw Error: unhandled promise rejection: boom/.test(l)), 'logged as a handler error');
});

t.test('a rejection after the response is complete leaves the response as it was', async (t) => {
  const res = await fetch(s.at('/resources/reject?how=rendered'));
  t.equal(res.status, 200);
  t.same(await body(res), { ok: true });
  t.equal(replaced(), 0);
});

t.test('the same isolate serves the next request', async (t) => {
  const res = await fetch(s.at('/resources/reject'));
  t.equal(res.status, 200);
  t.equal(await body(res), 'fine');
  t.equal(replaced(), 0);
});
