// order_by a field named like an Object.prototype member (README "Models": `constructor` is a field like any other).
import t from 'tap';
import { translateOrder } from '../../src/store/mongodb/translate.ts';
import { makeModel } from '../fixtures/models.ts';
import { eachStore } from '../store/each-store.ts';
import { collect, order, query } from '../store/conformance.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();
const MODEL = makeModel('things', { constructor: 'integer' as const, toString: 'string' as const, valueOf: 'integer' as const });

t.test('the translated sort names the field', async (t) => {
  t.strictSame(translateOrder(MODEL, order('-constructor')), { constructor: -1, _id: 1 });
  t.strictSame(translateOrder(MODEL, order('toString')), { toString: 1, _id: 1 });
});

eachStore(t, async (t, store) => {
  await store.ensure(MODEL);
  for (const [i, n] of [3, 1, 2].entries()) await store.insert(MODEL, { constructor: n, toString: String(n), valueOf: n }, stamp(i));
  const ids = async (...o: string[]) => (await collect(store.list(MODEL, query({ order: order(...o) })))).map((m) => m.id);
  t.same(await ids('constructor'), [2, 3, 1], 'order_by=constructor');
  t.same(await ids('-valueOf'), [1, 3, 2], 'order_by=-valueOf');
  t.same(await ids('toString'), [2, 3, 1], 'order_by=toString');
});
