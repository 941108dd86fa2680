// Attack: a handler's model-API call with a 4 Mi-character text where a bound of a few thousand
// characters applies: a `contains` condition (4,000) or a string field's `max_length`. The server
// counted every character of it (code points, one by one) before comparing with the bound, twice
// for the condition (once more for its message): 30 ms of the event loop a count, 86 ms a `list()`
// where the same call with a value it reads at once took 12, every tenant waiting. A text is now
// counted no further than its bound (README "Limits": the call throws an Error saying so).

import t from 'tap';
import { body, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { people: { fields: { name: { type: 'string', max_length: 80 } } } },
  resources: {
    'people.ts': `export function onList() {
      const big = 'x'.repeat(4_000_000);
      const out: Record<string, string> = {};
      const calls: Record<string, () => unknown> = {
        contains: () => svc.collection('people').list({ name__contains: big }),
        create: () => svc.collection('people').create({ name: big }),
        fits: () => svc.collection('people').create({ name: '\\u{1F600}'.repeat(80) }).name.length,
        over: () => svc.collection('people').create({ name: '\\u{1F600}'.repeat(81) }),
      };
      for (const [name, call] of Object.entries(calls)) {
        try { out[name] = String(call()); } catch (e) { out[name] = (e as Error).message; }
      }
      zput('/request/json/output', out);
      render();
    }\n`,
  },
});
t.teardown(() => s.close());

t.test('a text over its bound is refused as such, without counting all of it', async (t) => {
  const out = await body(await fetch(s.at('/resources/people')));
  t.match(out.contains, /name__contains is a text of at most 4000 characters for "contains"$/, 'the condition names its bound, not the length it was');
  t.match(out.create, /name must be at most 80 characters long/);
  t.equal(out.fits, '160', '80 characters of two UTF-16 units each fit');
  t.match(out.over, /name must be at most 80 characters long/, 'and 81 do not');
});
