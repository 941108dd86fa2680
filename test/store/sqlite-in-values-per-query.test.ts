// Defect: one `in` filter lists at most 1,000 values (README "Limits"), because SQLite binds at most
// 32,766 values a statement, but a query may hold an `in` filter on each of many fields: a handler's
// `svc.collection(…).list({ f0__in: '…', f1__in: '…', … })` of 33 such filters was a 500 on SQLite
// ("too many SQL variables") where MongoDB answered it. SPEC §9: "results are identical for the same
// data and query". Both stores must answer such a query alike: both with the members, or both refuse
// it as invalid (400 / the call throws).

import t from 'tap';
import { parseQuery } from '../../src/model/query.ts';
import { SvcError } from '../../src/errors.ts';
import type { Query } from '../../src/model/types.ts';
import { makeModel } from '../fixtures/models.ts';
import { eachStore } from './each-store.ts';
import { collect } from './conformance.ts';

const names = Array.from({ length: 40 }, (_, i) => `f${i}`);
const model = makeModel('wide', Object.fromEntries(names.map((n) => [n, 'integer' as const])));
const thousand = Array.from({ length: 1000 }, (_, i) => i).join(',');

function parse(fields: string[]): Query | SvcError {
  try {
    return parseQuery(model, fields.map((n) => [`${n}__in`, thousand] as [string, string]));
  } catch (e) {
    if (e instanceof SvcError) return e;
    throw e;
  }
}

eachStore(t, async (t, store) => {
  await store.insert(model, Object.fromEntries(names.map((n) => [n, 7])), '2025-01-01T00:00:00.000Z');
  await store.insert(model, Object.fromEntries(names.map((n) => [n, 1007])), '2025-01-01T00:00:00.000Z');

  const some = parse(names.slice(0, 10));
  t.notOk(some instanceof SvcError, 'ten filters of 1,000 values are a query');
  if (!(some instanceof SvcError)) {
    t.same((await collect(store.list(model, some))).map((m) => m.id), [1]);
    t.equal(await store.count(model, some.filters), 1);
  }

  const many = parse(names);
  if (many instanceof SvcError) {
    t.equal(many.code, 'invalid-query', 'forty filters of 1,000 values are refused as invalid, on every store');
  } else {
    t.same((await collect(store.list(model, many))).map((m) => m.id), [1], 'forty filters of 1,000 values: the list');
    t.equal(await store.count(model, many.filters), 1, 'and the count');
  }
});
