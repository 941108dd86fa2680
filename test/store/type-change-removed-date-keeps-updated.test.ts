// A date field removed from the model and brought back as date-time (or a date-time back as a
// date) reads each value as the same date: it keeps its `updated`, as it does when the type
// changes without the field being removed in between (README "Models": "one rewritten to a value
// that reads back the same keeps its `updated`"), on both stores alike (SPEC §9). MongoDB
// recorded only the declared fields' types in svc.counters: a removed field's was forgotten, and
// when it came back its text was taken for a string's, so every member was stamped again (a new
// `updated`, a new ETag) where SQLite, which keeps the type in svc_fields, kept them.

import t from 'tap';
import { makeModel } from '../fixtures/models.ts';
import { collect, ids, filter, query } from './conformance.ts';
import { eachStore } from './each-store.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

eachStore(t, async (t, store) => {
  const d = makeModel('c', { a: 'string', t: 'date' });
  await store.insert(d, { a: 'x', t: '2024-05-01' }, stamp(1));
  await store.insert(d, { a: 'y', t: '2024-05-02' }, stamp(2));
  await store.ensure(makeModel('c', { a: 'string' }));
  const dt = makeModel('c', { a: 'string', t: 'date-time' });
  t.same(
    (await collect(store.list(dt, query({})))).map((m) => [m.t, m.updated]),
    [['2024-05-01T00:00:00.000Z', stamp(1)], ['2024-05-02T00:00:00.000Z', stamp(2)]],
    'date, removed, back as date-time: each reads as its midnight and keeps its updated',
  );
  t.same(await ids(store, dt, { filters: [filter('t', 'gte', '2024-05-02T00:00:00.000Z')] }), [2]);
  await store.ensure(makeModel('c', { a: 'string' }));
  t.same(
    (await collect(store.list(makeModel('c', { a: 'string', t: 'date' }), query({})))).map((m) => [m.t, m.updated]),
    [['2024-05-01', stamp(1)], ['2024-05-02', stamp(2)]],
    'date-time at midnight, removed, back as date: the same date, the same updated',
  );
});
