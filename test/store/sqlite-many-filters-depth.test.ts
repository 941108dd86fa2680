// Defect: the embedded store wrote a query's filters as one chain `(f1) AND (f2) AND …`, which
// SQLite parses into a tree as deep as the chain is long; past 1,000 filters (SQLITE_MAX_EXPR_DEPTH)
// it refuses the statement ("Expression tree is too large (maximum depth 1000)"), a 500, where
// MongoDB answers the same query (`$and` of them). A URL of 8 KiB holds that many on a model of a
// few hundred fields (`ab=&ab__in=&ab__gt=&ab__lt=&…`), and a handler's model API query holds
// them on one of 70. SPEC §9: "results are identical for the same data and query".

import t from 'tap';
import { parseQuery } from '../../src/model/query.ts';
import { makeModel } from '../fixtures/models.ts';
import { eachStore } from './each-store.ts';
import { collect } from './conformance.ts';

const names = Array.from({ length: 70 }, (_, i) => `f${i}`);
// As a model file must declare 70 fields (load.ts MAX_MODEL_INDEXES): the first 40 indexed, the rest not.
const model = makeModel('wide', Object.fromEntries(names.map((n, i) => [n, i < 40 ? ('string' as const) : { type: 'string' as const, index: false as const }])));

// Sixteen conditions on each field that all hold for "x" (and none for "y"): 1,120 filters.
const CONDITIONS: [string, string][] = [
  ['exact', 'x'], ['iexact', 'X'], ['contains', 'x'], ['icontains', 'X'], ['startswith', 'x'], ['istartswith', 'X'],
  ['endswith', 'x'], ['iendswith', 'X'], ['gte', 'x'], ['lte', 'x'], ['in', 'w,x'], ['range', 'a,z'],
  ['isnull', 'false'], ['ne', 'y'], ['gt', 'a'], ['lt', 'z'],
];
const query = parseQuery(model, names.flatMap((n) => CONDITIONS.map(([c, v]) => [`${n}__${c}`, v] as [string, string])));

eachStore(t, async (t, store) => {
  await store.insert(model, Object.fromEntries(names.map((n) => [n, 'x'])), '2025-01-01T00:00:00.000Z');
  await store.insert(model, Object.fromEntries(names.map((n, i) => [n, i === 69 ? 'y' : 'x'])), '2025-01-01T00:00:00.000Z');
  t.equal(query.filters.length, 1120);
  t.same((await collect(store.list(model, query))).map((m) => m.id), [1], 'the list');
  t.equal(await store.count(model, query.filters), 1, 'the count');
  t.same((await collect(store.listJson(model, { ...query, count: 5 }))).length, 1, 'a page');
  const page = await store.pageJson?.(model, { ...query, order: [{ field: 'f0', desc: false }], count: 5 });
  if (page) t.equal(page.total, 1, 'a page with its total');
});
