// Attack: a handler's model-API query (or the parameters it delegates with) holding one list
// parameter of millions of parts: `name__in` or `age__range` of four million commas, an
// `order_by` naming `name` 800,000 times. A call's data may be 4 Mi characters, and the query
// parser split such a value whole before looking at how many parts it had: 50 ms of the server's
// event loop for the commas, 90 to 240 ms for the order (accepted, since a repeated field counts
// once), for a few milliseconds of the handler's CPU each, every tenant's requests waiting. A
// list is now split only up to its bound: 1,000 values, two bounds, 10,000 fields (README
// "Collection queries"), and the call throws at once.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { people: PEOPLE },
  resources: {
    'people.ts': `export function onList() {
      const queries: Record<string, Record<string, string>> = {
        in: { name__in: ','.repeat(4_000_000) },
        range: { age__range: ','.repeat(4_000_000) },
        order: { order_by: 'name,'.repeat(800_000) + 'name' },
        orderAtBound: { order_by: Array.from({ length: 10_000 }, (_, i) => (i % 2 ? '-name' : 'age')).join(',') },
      };
      const out: Record<string, string> = {};
      for (const [name, query] of Object.entries(queries)) {
        try { out[name] = 'listed ' + svc.collection('people').list(query).length; } catch (e) { out[name] = (e as Error).message; }
      }
      zput('/request/json/output', out);
      render();
    }\n`,
  },
});
t.teardown(() => s.close());

t.test('a list parameter over its bound is refused without being split whole', async (t) => {
  const res = await fetch(s.at('/resources/people'));
  t.equal(res.status, 200);
  const out = await body(res);
  t.match(out.in, /name__in takes at most 1000 values$/, 'in: the bound, without counting the rest');
  t.match(out.range, /age__range must be two comma-separated bounds, low,high$/, 'range: two bounds');
  t.match(out.order, /order_by names at most 10000 fields$/, 'order_by: 800,000 fields are refused, not split and deduplicated');
  t.equal(out.orderAtBound, 'listed 0', 'an order_by of 10,000 fields (repeats) is still read');
});
