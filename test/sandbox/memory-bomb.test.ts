// Attack: a handler that allocates without bound. The isolate's heap limit stops it: 503, the isolate is replaced.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { bomb: PEOPLE, strings: PEOPLE, other: PEOPLE },
    resources: {
      'bomb.ts': [
        'export function onList() {',
        '  const hoard: number[][] = [];',
        '  for (;;) hoard.push(new Array(100_000).fill(Math.random()));',
        '}',
        "export function onRetrieve() { echo('recovered'); }",
      ].join('\n'),
      // Doubling a string fails inside V8 with a RangeError before the heap fills: a handler error.
      'strings.ts': "export function onList() {\n  let s = 'x';\n  for (;;) s += s;\n}\n",
      'other.ts': "export function onList() { echo('other'); }\n",
    },
  },
  // A small heap and a generous CPU limit, so that memory is the limit that trips.
  { limits: { memoryLimitMiB: 16, cpuLimitMs: 5000 } },
);
t.teardown(() => s.close());

t.test('filling the heap is 503 handler-memory-limit; the isolate is replaced', async (t) => {
  const res = await fetch(s.at('/resources/bomb'));
  t.equal(res.status, 503);
  t.match(await body(res), { code: 'handler-memory-limit', status: 503 });
  t.ok(s.log.some((l) => /bomb list\] isolate replaced \(memory\)/.test(l)));
  t.equal(await (await fetch(s.at('/resources/bomb/1'))).text(), 'recovered', 'a fresh isolate serves the next request');
  t.equal(await (await fetch(s.at('/resources/other'))).text(), 'other');
});

t.test('repeated bombs do not wear the server down', async (t) => {
  const statuses = await Promise.all(Array.from({ length: 4 }, () => fetch(s.at('/resources/bomb')).then((r) => r.status)));
  t.same(statuses, [503, 503, 503, 503]);
  t.equal(await (await fetch(s.at('/resources/other'))).text(), 'other');
});

t.test('a string that cannot grow further is an ordinary handler error: 500, not a memory limit', async (t) => {
  // `s += s` builds ropes of two pointers each, so the heap stays small: V8's string length limit
  // (2^29 − 24 characters) throws a RangeError after 29 doublings, which is the handler's own error (README, Errors).
  const res = await fetch(s.at('/resources/strings'));
  t.equal(res.status, 500);
  t.match(await body(res), { code: 'handler-error', status: 500 });
  t.ok(s.log.some((l) => /strings list\].*RangeError: Invalid string length/.test(l)), 'the log has the RangeError');
  t.notOk(s.log.some((l) => /strings list\] isolate replaced/.test(l)), 'the isolate is not replaced');
  t.equal(await (await fetch(s.at('/resources/other'))).text(), 'other');
});
