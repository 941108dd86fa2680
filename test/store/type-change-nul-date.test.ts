// Text holding a NUL, in a field made a date or date-time, reads whole on both stores (README
// "Models": a field whose type changes reads its stored values in the new type, text as it is).
// SQLite read date columns without the NUL-safe expression (node:sqlite cuts text at a NUL), on the
// assumption that dates never hold one: "a\0b" read "a".

import t, { type Test } from 'tap';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';
import { collect, query } from './conformance.ts';
import { eachStore } from './each-store.ts';

async function nulText(t: Test, store: Store): Promise<void> {
  await store.insert(makeModel('c', { x: 'string' }), { x: 'a\0b' }, '2025-01-01T00:00:00.000Z');
  for (const type of ['date', 'date-time'] as const) {
    const m = makeModel('c', { x: type });
    t.equal((await store.get(m, 1))?.x, 'a\0b', `${type}: by id`);
    t.same((await collect(store.list(m, query({})))).map((x) => x.x), ['a\0b'], `${type}: in a list`);
    if (store.listJson) t.same((await collect(store.listJson(m, query({})))).map((j) => JSON.parse(j).x), ['a\0b'], `${type}: as JSON text`);
  }
}

eachStore(t, nulText);
