// Query parsing (SPEC §6) as a pure function: parameters in, a typed query or a 400 out.

import t from 'tap';
import { loadModel } from '../../src/model/load.ts';
import { parseQuery } from '../../src/model/query.ts';
import { CONDITIONS, type Model } from '../../src/model/types.ts';

const r = loadModel('/app/models/things.json', JSON.stringify({
  fields: {
    s: { type: 'string', max_length: 3 }, x: { type: 'text' }, i: { type: 'integer' }, f: { type: 'float' },
    b: { type: 'boolean' }, d: { type: 'date' }, dt: { type: 'date-time' }, count: { type: 'integer' },
  },
}));
if (!r.ok) throw new Error(r.reason);
const model: Model = r.model;
const q = (s: string) => parseQuery(model, new URLSearchParams(s));

t.test('filters are typed by the field', async (t) => {
  t.same(q('i__gt=3').filters, [{ field: 'i', condition: 'gt', value: 3 }]);
  t.same(q('i=3').filters, [{ field: 'i', condition: 'exact', value: 3 }]);
  t.same(q('f__in=1,2.5').filters, [{ field: 'f', condition: 'in', value: [1, 2.5] }]);
  t.same(q('dt__range=2024-01-01T00:00:00Z,2024-01-02T00:00:00%2B01:00').filters[0]!.value, ['2024-01-01T00:00:00.000Z', '2024-01-01T23:00:00.000Z']);
  t.same(q('b=true').filters[0]!.value, true);
  t.same(q('d__isnull=true').filters[0]!.value, true);
  t.same(q('d__day=5').filters[0]!.value, 5);
  t.same(q('s__startswith=abcdef').filters[0]!.value, 'abcdef', 'max_length does not bound a filter value');
  t.same(q('id__lte=9').filters[0], { field: 'id', condition: 'lte', value: 9 });
  t.same(q('updated__year=2024').filters[0], { field: 'updated', condition: 'year', value: 2024 });
});

t.test('white space around a value of a non-text field is trimmed, as around a number; a text value keeps it', async (t) => {
  t.same(q('i=%203%20').filters[0]!.value, 3);
  t.same(q('b=%20true').filters[0]!.value, true);
  t.same(q('b__in=true,%20false').filters[0]!.value, [true, false]);
  t.same(q('d=2024-02-29%20').filters[0]!.value, '2024-02-29');
  t.same(q('dt__gte=%202024-01-01T00:00:00Z').filters[0]!.value, '2024-01-01T00:00:00.000Z');
  t.same(q('d__isnull=%20false').filters[0]!.value, false);
  t.same(q('d__day=%205').filters[0]!.value, 5);
  t.same(q('s=%20a%20').filters[0]!.value, ' a ', 'a string filter is the text as sent');
});

t.test('which conditions fit which types', async (t) => {
  const fits: Record<string, string[]> = {
    s: ['exact', 'iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'gt', 'gte', 'lt', 'lte', 'ne', 'in', 'range', 'isnull'],
    i: ['exact', 'gt', 'gte', 'lt', 'lte', 'ne', 'in', 'range', 'isnull'],
    b: ['exact', 'ne', 'in', 'isnull'],
    d: ['exact', 'gt', 'gte', 'lt', 'lte', 'ne', 'in', 'range', 'isnull', 'year', 'month', 'day'],
  };
  const sample: Record<string, string> = { s: 'a', i: '1', b: 'true', d: '2024-01-01' };
  const special: Record<string, string> = { isnull: 'true', year: '2024', month: '1', day: '1' };
  for (const [field, ok] of Object.entries(fits)) {
    for (const c of CONDITIONS) {
      const value = special[c] ?? (c === 'range' ? `${sample[field]},${sample[field]}` : sample[field]!);
      const params = new URLSearchParams([[`${field}__${c}`, value]]);
      if (ok.includes(c)) t.doesNotThrow(() => parseQuery(model, params), `${field}__${c}`);
      else t.throws(() => parseQuery(model, params), { code: 'invalid-query' }, `${field}__${c}`);
    }
  }
});

t.test('paging and ordering', async (t) => {
  t.same(q(''), { filters: [], order: [], start: 0 });
  t.same(q('start=5&count=5'), { filters: [], order: [], start: 5, count: 5 });
  t.same(q('order_by=-i,s').order, [{ field: 'i', desc: true }, { field: 's', desc: false }]);
  t.same(parseQuery(model, [], [{ field: 'updated', desc: true }]).order, [{ field: 'updated', desc: true }], 'the default order applies');
  t.same(q('count__exact=4&count=2'), { filters: [{ field: 'count', condition: 'exact', value: 4 }], order: [], start: 0, count: 2 });
});

t.test('an in list holds at most 1000 values', async (t) => {
  t.equal((q(`i__in=${Array.from({ length: 1000 }, (_, n) => n).join(',')}`).filters[0]!.value as unknown[]).length, 1000);
  t.throws(() => q(`i__in=${Array.from({ length: 1001 }, (_, n) => n).join(',')}`), { code: 'invalid-query', errors: [{ parameter: 'i__in', message: 'takes at most 1000 values' }] });
});

t.test('errors name every bad parameter', async (t) => {
  t.throws(() => q('zz=1&i__gt=x&start=-2&order_by=-nope&d__month=0'), {
    code: 'invalid-query',
    errors: [
      { parameter: 'zz' },
      { parameter: 'i__gt' },
      { parameter: 'start' },
      { parameter: 'order_by' },
      { parameter: 'd__month' },
    ],
  });
});
