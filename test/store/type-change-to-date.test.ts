// A field made date or date-time reads its stored values as the new type holds them (SPEC §3: a
// date is YYYY-MM-DD, a date-time is stored and returned in UTC with milliseconds and `Z`; README
// "Models"): text that is a date or date-time is read in canonical form and filters and orders as
// such, other text and numbers are absent, on both stores. Both stores served the stored text as
// it was: `2024-05-01T10:00:00+02:00` in a date-time field, compared as text
// (`t__lt=2024-05-01T09:00:00Z` missed the member at 08:00 UTC), and a member read so was refused
// when sent back unchanged.

import t, { type Test } from 'tap';
import type { Member } from '../../src/model/types.ts';
import { parseValue } from '../../src/model/values.ts';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';
import { collect, filter, ids, order, query } from './conformance.ts';
import { eachStore } from './each-store.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

/** Stored as text (a string field), then read as `type`. */
const TEXTS = [
  '2024-05-01T10:00:00+02:00', // 1: 08:00 UTC
  '2024-05-01T08:30:00.000Z', // 2: canonical already
  '2024-05-01', // 3: a date
  'abc', // 4
  '2024-02-30', // 5: no such day
  '2024-05-01t07:00:00.5z', // 6: lower case, a fraction
  '', // 7
];

async function members(store: Store, type: 'date' | 'date-time'): Promise<Member[]> {
  return collect(store.list(makeModel('c', { t: type }), query({ order: order('id') })));
}

async function toDates(t: Test, store: Store): Promise<void> {
  const s = makeModel('c', { t: 'string' });
  for (const [i, v] of TEXTS.entries()) await store.insert(s, { t: v }, stamp(i));
  await store.insert(s, { t: 5 as unknown as string }, stamp(10)); // 8: not text (as a float field left it)

  const dt = makeModel('c', { t: 'date-time' });
  const read = await members(store, 'date-time');
  t.same(
    read.map((m) => m.t),
    ['2024-05-01T08:00:00.000Z', '2024-05-01T08:30:00.000Z', '2024-05-01T00:00:00.000Z', undefined, undefined, '2024-05-01T07:00:00.500Z', undefined, undefined],
    'date-time: each value in UTC with milliseconds and Z, or absent',
  );
  for (const m of read) t.same(await store.get(dt, m.id), m, `date-time: member ${m.id} by id as in the list`);
  // What a client reads it can send back: every value read is one a write accepts as it is.
  for (const m of read) if (m.t !== undefined) t.same(parseValue(dt.declared[0]!, m.t, false), { ok: true, value: m.t }, `member ${m.id}: ${String(m.t)} is canonical`);
  t.same(await ids(store, dt, { filters: [filter('t', 'lt', '2024-05-01T08:15:00.000Z')] }), [1, 3, 6], 'date-time: lt compares instants');
  t.same(await ids(store, dt, { filters: [filter('t', 'exact', '2024-05-01T08:00:00.000Z')] }), [1], 'date-time: exact finds the member written with an offset');
  t.same(await ids(store, dt, { filters: [filter('t', 'isnull', true)] }), [4, 5, 7, 8], 'date-time: isnull finds those that are none');
  t.same(await ids(store, dt, { filters: [filter('t', 'day', 1)] }), [1, 2, 3, 6], 'date-time: day of the UTC date');
  t.same(await ids(store, dt, { order: order('t') }), [4, 5, 7, 8, 3, 6, 1, 2], 'date-time: ordered by instant, absent first');
  // A member that reads as it was stored keeps its `updated`; one whose value changed gets a new one.
  t.equal(read[1]!.updated, stamp(1), 'a value already canonical keeps its updated');
  t.not(read[0]!.updated, stamp(0), 'a value rewritten gets a new updated (another member now)');
  t.not(read[3]!.updated, stamp(3), 'a value that is none gets a new updated');

  // date-time → date: the UTC date; a date made date-time reads back as the same date.
  const d = makeModel('c', { t: 'date' });
  const dates = await members(store, 'date');
  t.same(dates.map((m) => m.t), ['2024-05-01', '2024-05-01', '2024-05-01', undefined, undefined, '2024-05-01', undefined, undefined], 'date: the UTC date of each date-time');
  t.same(await ids(store, d, { filters: [filter('t', 'exact', '2024-05-01')] }), [1, 2, 3, 6], 'date: exact');
  for (const m of dates) t.same(await store.get(d, m.id), m, `date: member ${m.id} by id as in the list`);
}

eachStore(t, toDates);

t.test('a date field made date-time keeps the updated of its members (each reads back as its date)', async (t) => {
  eachStore(t, async (t, store) => {
    const d = makeModel('c', { t: 'date' });
    await store.insert(d, { t: '2024-05-01' }, stamp(1));
    await store.insert(d, { t: '1999-12-31' }, stamp(2));
    const read = await members(store, 'date-time');
    t.same(read.map((m) => [m.t, m.updated]), [['2024-05-01T00:00:00.000Z', stamp(1)], ['1999-12-31T00:00:00.000Z', stamp(2)]]);
    t.same(await ids(store, makeModel('c', { t: 'date-time' }), { filters: [filter('t', 'gte', '2000-01-01T00:00:00.000Z')] }), [1]);
  });
});
