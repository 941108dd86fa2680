// Console output is not response output: a console line longer than the app's maxOutputBytes was
// refused as output (503 handler-output-limit, or a throw after delegate()). A console line has its
// own bound, on both sides of the boundary.

import t from 'tap';
import type { Exchange } from '../../src/exchange/exchange.ts';
import { createHostCall } from '../../src/sandbox/bridge.ts';
import { MAX_LOG_LINE_CHARS, type Call } from '../../src/sandbox/guest.ts';
import { body, eventually, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { before: PEOPLE, after: PEOPLE, long: PEOPLE },
  resources: {
    'before.ts': "console.log('b'.repeat(1500)); echo('ok');",
    'after.ts': "export function onList() { svc.delegate(); console.log('a'.repeat(1500)); console.log('after: went on'); }",
    'long.ts': "console.log('l'.repeat(20_000)); echo('ok');",
  },
  files: { 'svc.json': JSON.stringify({ limits: { maxOutputBytes: 1000 } }) },
});
t.teardown(() => s.close());

const logged = (collection: string, text: string) => s.log.includes(`svc: [app/${collection} list] log: ${text}`);

t.test('a console line longer than maxOutputBytes, before any output: logged, and the response is the handler\'s', async (t) => {
  const res = await fetch(s.at('/resources/before'));
  t.equal(res.status, 200);
  t.equal(await body(res), 'ok');
  t.ok(logged('before', 'b'.repeat(1500)));
});

t.test('after delegate(): logged, and the handler goes on', async (t) => {
  const res = await fetch(s.at('/resources/after'));
  t.equal(res.status, 200);
  t.same(await body(res), []);
  // The handler runs on after its response is complete: wait for its last line, or its failure.
  t.ok(await eventually(() => logged('after', 'after: went on') || s.log.some((l) => l.startsWith('svc: [app/after list] handler threw'))));
  t.ok(logged('after', 'a'.repeat(1500)));
  t.notOk(s.log.some((l) => l.startsWith('svc: [app/after list] handler threw')));
});

t.test(`a console line is cut to ${MAX_LOG_LINE_CHARS} characters, … included`, async (t) => {
  const res = await fetch(s.at('/resources/long'));
  t.equal(await body(res), 'ok');
  t.ok(logged('long', `${'l'.repeat(MAX_LOG_LINE_CHARS - 1)}…`));
});

t.test('the host takes a log call\'s text up to one line, whatever the output cap; never more', async (t) => {
  const lines: string[] = [];
  const push = (line: string) => lines.push(line);
  const ex = { limits: { maxOutputBytes: 1000 }, log: { info: push, warn: push, error: push } } as unknown as Exchange;
  const call: Call = { token: 1, ex, started: true, closed: false, hostMs: 0 };
  const host = createHostCall({ app: 'app', lookup: (token) => (token === 1 ? call : undefined) });
  const log = (text: string) => host('log', '{"level":"log"}', text, 1);

  t.equal(await log('x'.repeat(MAX_LOG_LINE_CHARS)), '{"value":null}');
  t.same(lines, [`log: ${'x'.repeat(MAX_LOG_LINE_CHARS)}`]);
  t.same(JSON.parse(await log('y'.repeat(4 * 1024 * 1024))), { error: { type: 'TypeError', message: 'svc: malformed runtime call (text)' } });
  t.same(JSON.parse(await host('env', '{"name":"X"}', 'z', 1)), { error: { type: 'TypeError', message: 'svc: malformed runtime call (text)' } }, 'a call that takes no text is refused one');
  t.equal(lines.length, 1, 'nothing of them was logged');
  t.equal(call.closed, false, 'and the response was not ended for them');
});
