// MongoDB serves a sort from an index only when the sort's keys match the index's directions or all
// their inverses (https://www.mongodb.com/docs/manual/tutorial/sort-results-with-indexes/). The Atom
// feed's default order, -updated, sorts { updated: -1, _id: 1 }: neither { updated: 1, _id: 1 } nor
// its inverse, so every feed page sorted every member. Other descending orders still do (README
// "Collection queries"); ascending ones read their field's index.
import t from 'tap';
import { openStore } from '../../src/store/open.ts';
import { translateOrder } from '../../src/store/mongodb/translate.ts';
import { MongoClient } from 'mongodb';
import { makeModel } from '../fixtures/models.ts';
import { order } from '../store/conformance.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';

t.test('ascending orders and newest-first have an index to read them from', async (t) => {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  const store = await openStore(wire.uri, 'desc');
  t.teardown(() => store.close());
  const model = makeModel('people', { name: 'string', born: 'date' });
  await store.ensure(model);
  const admin = new MongoClient(wire.uri);
  t.teardown(() => admin.close());
  const indexes = (await admin.db('svc_desc').collection('people').listIndexes().toArray()).map((i) => i.key as Record<string, number>);
  const serves = (sort: Record<string, number>) =>
    indexes.some((key) => {
      const k = Object.entries(key), s = Object.entries(sort);
      if (k.length < s.length) return false;
      const dir = s.every(([f, d], i) => k[i]![0] === f && k[i]![1] === d);
      const inv = s.every(([f, d], i) => k[i]![0] === f && k[i]![1] === -d);
      return dir || inv;
    });
  for (const o of ['born', 'updated', '-updated', '-id']) {
    const sort = translateOrder(model, order(o));
    t.ok(serves(sort), `order_by=${o}: sort ${JSON.stringify(sort)} is served by one of ${JSON.stringify(indexes)}`);
  }
});
