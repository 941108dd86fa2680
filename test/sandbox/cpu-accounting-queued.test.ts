// Requests queued on one isolate run one at a time, and each is charged only its own CPU time: the
// host starts a request's accounting when the one before it comes back (isolate-pool.ts, Slot.run),
// so a request that waited behind others is neither charged their time against its CPU limit nor
// reported with it (handlerCpuMs in the request log).

import t from 'tap';
import type { LogRecord } from '../../src/exchange/log.ts';
import { makeApp, startServer } from '../helpers/server.ts';
import { eventually } from './harness.ts';

const SPIN_MS = 150;
const app = makeApp({
  models: { work: { fields: { name: { type: 'string' } } } },
  resources: {
    // Busy for SPIN_MS of wall-clock time: at most that much CPU, less when the thread is not scheduled.
    'work.ts': `export function onList() { const end = Date.now() + ${SPIN_MS}; while (Date.now() < end) {} zput('/request/status', 200); }`,
  },
});
const records: LogRecord[] = [];
// One isolate, so the requests queue on it; each spins within the CPU limit, two of them would not.
const server = await startServer({
  appDir: app.dir,
  limits: { maxIsolates: 1, cpuLimitMs: SPIN_MS * 2 - 10, wallLimitMs: 60_000 },
  log: (record) => records.push(record),
});
t.teardown(async () => {
  await server.close();
  app.cleanup();
});

t.test('four requests at once on one isolate: each runs to its end, charged its own time only', async (t) => {
  const ids = ['q1', 'q2', 'q3', 'q4'];
  const statuses = await Promise.all(ids.map(async (id) => (await fetch(server.at('/resources/work'), { headers: { 'x-request-id': id } })).status));
  t.same(statuses, [200, 200, 200, 200], 'none broke the CPU limit for the time it waited');
  t.notOk(records.some((r) => r.msg.includes('isolate replaced')), 'the isolate was not replaced');
  // A request's record is written when its response is complete on the server's side.
  const logged = (id: string) => records.find((r) => r.fields.requestId === id && typeof r.fields.handlerCpuMs === 'number');
  t.ok(await eventually(() => ids.every(logged)), 'every request has its request-log record');
  for (const id of ids) {
    const ms = logged(id)?.fields.handlerCpuMs as number;
    t.ok(ms > 0 && ms < SPIN_MS * 1.5, `${id}: handlerCpuMs ${ms} is its own spin (at most ${SPIN_MS} ms), not the queue's`);
  }
});
