// A heavy filter on one tenant's large members (a case-insensitive scan of 30 MiB) must not stall
// another tenant's requests: the scan runs in a reader thread, off the event loop, and the store
// stops it when its store time is up (503 store-time-limit), also inside a model-API call.

import t from 'tap';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Limits } from '../../src/exchange/limits.ts';
import { readerEvents } from '../../src/store/sqlite/readers.ts';
import { getWithHost } from '../helpers/raw-http.ts';
import { makeApp, startServer, type TestServer } from '../helpers/server.ts';

const ROWS = 60;
/**
 * 512 KiB of mixed case: lower-casing it is real work for every member a case-insensitive filter
 * tests. A scan of the ROWS members (30 MiB) takes about half a second on a quiet machine: what the
 * tests need is a scan still running while B is answered, and one far longer than 20 ms.
 */
const TEXT = 'Ab'.repeat(256 * 1024);

const template = makeApp({
  models: { p: { fields: { txt: { type: 'text' } } }, loop: { fields: { n: { type: 'integer' } } } },
  resources: {
    'p.ts': 'svc.delegate();\n',
    // Counts with a heavy filter for as long as the model API lets it.
    'loop.ts': `export function onList() {
  let calls = 0;
  let error = '';
  try {
    for (;;) {
      svc.collection('p').count({ txt__icontains: 'zzz' });
      calls++;
    }
  } catch (e) {
    error = String((e as Error).message);
  }
  zput('/request/json/output', { calls, error });
  render();
}
`,
  },
});
t.teardown(() => template.cleanup());

// Tenants `a` and `b` on SQLite files, shared by the tests: each test runs a server of its own (its
// own limits) on them, one after the other. The tests only read, so the members are written once,
// by the first server.
const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
const data = mkdtempSync(join(tmpdir(), 'svc-tenant-data-'));
cpSync(template.dir, join(tenants, 'a'), { recursive: true });
cpSync(template.dir, join(tenants, 'b'), { recursive: true });
t.teardown(() => {
  rmSync(tenants, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});
let seeded = false;

/** A server of tenants `a` and `b`, tenant `a` holding ROWS members of TEXT and `b` one small one. */
async function tenantsServer(t: { teardown(fn: () => unknown): void }, limits: Partial<Limits> = {}): Promise<TestServer & { dataDir: string }> {
  const server = await startServer({ tenantsDir: tenants, store: `sqlite:${join(data, 'svc.sqlite')}`, limits });
  t.teardown(() => server.close());
  if (!seeded) {
    const a = (await server.apps.resolve('a.localhost'))!;
    const model = a.models.get('p')!;
    await Promise.all(Array.from({ length: ROWS }, () => a.store.insert(model, { txt: TEXT }, new Date().toISOString())));
    const b = (await server.apps.resolve('b.localhost'))!;
    await b.store.insert(b.models.get('p')!, { txt: 'small' }, new Date().toISOString());
    seeded = true;
  }
  return Object.assign(server, { dataDir: data });
}

t.test("tenant A's heavy filters run off the event loop: tenant B is answered while they run", async (t) => {
  // A minute of store time per query: each scan takes about half a second on a quiet machine,
  // several with every core busy, and what this test is about is the event loop, not the default
  // limit (the next test is about the limit).
  const server = await tenantsServer(t, { storeLimitMs: 60_000 });
  const aFile = join(server.dataDir, 'svc.a.sqlite');
  // A's reads in progress in the reader threads.
  let inProgress = 0;
  const started = (path: string) => void (path === aFile && inProgress++);
  const finished = (path: string) => void (path === aFile && inProgress--);
  readerEvents.on('running', started).on('finished', finished);
  t.teardown(() => void readerEvents.off('running', started).off('finished', finished));
  const running = new Promise<void>((resolve) => readerEvents.once('running', () => resolve()));
  const order: string[] = [];
  // Four clients of A (the attack used eight): each list is a count and a page, both scanning 30 MiB.
  const heavy = Array.from({ length: 4 }, () =>
    getWithHost(server.port, 'a.localhost', '/resources/p?txt__icontains=zzz').then((r) => {
      order.push('a');
      return r;
    }),
  );
  await running;
  const b = await getWithHost(server.port, 'b.localhost', '/resources/p');
  order.push('b');
  t.ok(inProgress > 0, "B was answered while one of A's scans was running in a reader thread");
  // A has at most one scan in the reader threads at a time, so a scan of B's finds a thread free.
  const bHeavy = await getWithHost(server.port, 'b.localhost', '/resources/p?txt__icontains=MAL');
  order.push('b heavy');
  t.equal(bHeavy.status, 200);
  t.same(JSON.parse(bHeavy.text).map((m: { txt: string }) => m.txt), ['small']);
  t.ok(inProgress > 0, "B's own heavy filter was answered while A's scans were still going");
  t.equal(b.status, 200);
  t.same(JSON.parse(b.text).map((m: { txt: string }) => m.txt), ['small']);
  const answers = await Promise.all(heavy);
  t.same(answers.map((r) => [r.status, r.text, r.headers['x-total-count']]), Array(4).fill([200, '[]', '0']), 'every heavy list is answered, with nothing found');
  // B's plain list comes first. One of A's four lists may finish before B's heavy filter does (they
  // need the reader threads in turn): that B's filter was answered while A's scans were still
  // running is the event-based check above.
  t.equal(order[0], 'b', `B was answered before any of A's heavy lists (order: ${order.join(', ')})`);
  t.ok(order.indexOf('b heavy') < order.lastIndexOf('a'), `B's heavy filter was answered before the last of A's (order: ${order.join(', ')})`);
});

t.test('a query past its store time is 503 store-time-limit and leaves the data as it was', async (t) => {
  // Lower-casing 30 MiB takes far longer than 20 ms on any machine.
  const server = await tenantsServer(t, { storeLimitMs: 20 });
  const res = await getWithHost(server.port, 'a.localhost', '/resources/p?txt__icontains=zzz');
  t.equal(res.status, 503);
  const problem = JSON.parse(res.text);
  t.equal(problem.code, 'store-time-limit');
  t.match(problem.detail, /20 ms of store time/);
  t.equal(res.headers['retry-after'], undefined, 'no Retry-After: the same query would run over again');
  // Stored data intact: the kept count, and a member read back whole.
  const all = await getWithHost(server.port, 'a.localhost', '/resources/p?count=1');
  t.equal(all.status, 200);
  t.equal(all.headers['x-total-count'], String(ROWS));
  const one = await getWithHost(server.port, 'a.localhost', '/resources/p/1');
  t.equal(JSON.parse(one.text).txt, TEXT);
  // A narrow query on the same data is served.
  const narrow = await getWithHost(server.port, 'a.localhost', '/resources/p?id__lte=2&count=2');
  t.equal(narrow.status, 200);
  t.equal(JSON.parse(narrow.text).length, 2);
});

t.test("the model-API budget bounds a call in progress, not only the calls after it", async (t) => {
  const server = await tenantsServer(t, { modelLimitMs: 20 });
  const res = await getWithHost(server.port, 'a.localhost', '/resources/loop');
  t.equal(res.status, 200);
  const { calls, error } = JSON.parse(res.text);
  // Before the fix the first call ran to its end (far past 20 ms) and the budget stopped the second.
  t.equal(calls, 0, 'the first call was stopped when the budget ran out');
  t.match(error, /count\(\): the store ran out of time for it/);
});
