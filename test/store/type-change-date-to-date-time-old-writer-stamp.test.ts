// Text that a process still on the old model file wrote into a field made date (not canonical:
// `2024-05-01T23:30:00-05:00`, which reads `2024-05-02`), then the field made date-time: the
// member read `2024-05-02` and now reads `2024-05-02T04:30:00.000Z`, which reads back as that date,
// so it keeps its `updated` (README "Models": "one rewritten to a value that reads back the same
// keeps its `updated`"; a date made date-time reads back as the same date), on both stores alike
// (SPEC §9). SQLite compared the new value with the old one as a date read it; MongoDB with the
// stored text, and stamped the member again.

import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/store.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';
import { makeModel } from '../fixtures/models.ts';
import { collect, query } from './conformance.ts';

const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, n)).toISOString();

async function scenario(t: Test, open: () => Promise<Store>): Promise<void> {
  const now = await open();
  t.teardown(() => now.close());
  const old = await open();
  const was = makeModel('m', { v: 'string' });
  await old.insert(was, { v: '2024-05-01' }, stamp(1));
  await now.ensure(makeModel('m', { v: 'date' }));
  await old.insert(was, { v: '2024-05-01T23:30:00-05:00' }, stamp(2));
  await old.close();
  t.same((await collect(now.list(makeModel('m', { v: 'date' }), query({})))).map((m) => [m.v, m.updated]), [['2024-05-01', stamp(1)], ['2024-05-02', stamp(2)]], 'as dates');
  const dt = makeModel('m', { v: 'date-time' });
  t.same(
    (await collect(now.list(dt, query({})))).map((m) => [m.v, m.updated]),
    [['2024-05-01T00:00:00.000Z', stamp(1)], ['2024-05-02T04:30:00.000Z', stamp(2)]],
    'made date-time: each reads back as the date it read, and keeps its updated',
  );
}

t.test('SQLite', async (t) => {
  const path = join(t.testdir(), 'store.sqlite');
  await scenario(t, () => openStore(`sqlite:${path}`, ''));
});

t.test('MongoDB (the wire test server)', async (t) => {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  await scenario(t, () => openStore(wire.uri, 'store'));
});
