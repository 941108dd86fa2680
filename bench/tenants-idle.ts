// Idle tenants: 100 tenants × 5 handlers, each handler touched once, then every tenant idle. The
// server's resident memory once the idle tenants have released their isolates and stores.
//
//   node bench/tenants-idle.ts [tenants=100] [idle ms=20000] [cycles=1]
//
// The server runs in a child process (`svc serve --tenants … --tenant-idle <idle ms>`, SQLite
// files); this process sends the requests and reads the server's VmRSS from /proc. Each handler
// runs in its tenant's isolate (a header, a default order, then `svc.delegate()`), so every tenant
// has compiled handlers, an isolate and an open store before it idles. Prints the memory at start,
// after touching everything and after the release, and a `RESULT {json}` line for `npm run bench`.
// With cycles > 1 the same server goes through touch-and-idle again: whether what stays after a
// release grows from cycle to cycle (the RESULT is the last cycle's).

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../test/helpers/process.ts';
import { makeApp } from '../test/helpers/server.ts';
import { newPool } from './load.ts';
import { memoryOf } from './servers.ts';

const TENANTS = Number(process.argv[2] ?? 100);
// Long enough that no tenant is released before the last is touched (the RSS "after touching" is
// then every tenant open), short enough to wait for.
const IDLE_MS = Number(process.argv[3] ?? 20_000);
const CYCLES = Number(process.argv[4] ?? 1);
const HANDLERS = 5;
/** Requests in flight while touching: a few, as clients of many tenants would send. */
const CONNECTIONS = 8;
/** Longest wait for the release, in milliseconds: far beyond the idle time, so a busy machine does not fail the check. */
const RELEASE_BOUND_MS = IDLE_MS + 60_000;
const MAX_MB = 400;
/** The RSS has settled when it moved less than SETTLED_BYTES over SETTLED_SAMPLES samples 500 ms apart; waited for at most SETTLE_BOUND_MS. */
const SETTLED_SAMPLES = 7;
const SETTLED_BYTES = 2 * 1024 * 1024;
const SETTLE_BOUND_MS = 60_000;
/**
 * Watched for at least this long: the freeing may start seconds after the release (one run read
 * 645 MB, flat for 3 s, where others read 365-400 MB once it had fallen).
 */
const SETTLE_MIN_MS = 15_000;

const tenantName = (t: number) => `t${String(t).padStart(3, '0')}`;
const collection = (h: number) => `things${h}`;

const files: Record<string, string> = {};
for (let t = 0; t < TENANTS; t++) {
  for (let h = 0; h < HANDLERS; h++) {
    const c = collection(h);
    files[`${tenantName(t)}/models/${c}.json`] = JSON.stringify({
      fields: { title: { type: 'string', required: true }, amount: { type: 'integer' }, due: { type: 'date' }, done: { type: 'boolean' } },
    });
    files[`${tenantName(t)}/resources/${c}.ts`] = [
      'export function onList() {',
      `  zput('/request/headers/out/x-collection', '${c}');`,
      "  if (!zcontains('/request/params/order_by')) zput('/request/params/order_by', '-amount');",
      '  svc.delegate();',
      '}',
      'export function onCreate() {',
      `  zput('/request/headers/out/x-collection', '${c}');`,
      "  const body = zget('/request/body') as { title?: string };",
      "  const title = String(body.title ?? '').trim();",
      "  zput('/request/body', { ...body, title: title.length > 0 ? title : 'untitled' });",
      '  svc.delegate();',
      '}',
      'export function onRetrieve() {',
      '  svc.delegate();',
      '}',
      '',
    ].join('\n');
  }
}
const root = makeApp({ files });
const data = mkdtempSync(join(tmpdir(), 'svc-tenants-idle-'));
const server = await spawnServer(['--tenants', root.dir, '--store', `sqlite:${join(data, 'svc.sqlite')}`, '--log-level', 'warn', '--tenant-idle', String(IDLE_MS)]);
const pool = newPool(server.url, CONNECTIONS);
const pid = server.child.pid!;
const mb = (bytes: number) => bytes / (1024 * 1024);

/** The server's `svc_isolates` gauge. */
async function isolates(): Promise<number> {
  const res = await pool.request({ method: 'GET', path: '/metrics' });
  const text = await res.body.text();
  return Number(/^svc_isolates (\d+)$/m.exec(text)?.[1] ?? NaN);
}

/** Touches every handler once, waits for every tenant's release, then for the RSS to settle. */
async function cycle(last: boolean): Promise<void> {
  // One request per handler (a create, which runs the handler in the isolate and writes the store), CONNECTIONS at a time.
  const work: (() => Promise<void>)[] = [];
  for (let t = 0; t < TENANTS; t++) {
    for (let h = 0; h < HANDLERS; h++) {
      work.push(async () => {
        const res = await pool.request({
          method: 'POST',
          path: `/resources/${collection(h)}`,
          headers: { host: `${tenantName(t)}.localhost`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: ` item ${t}.${h} `, amount: t * HANDLERS + h, due: '2025-01-31', done: false }),
        });
        const text = await res.body.text();
        if (res.statusCode !== 201 || res.headers['x-collection'] !== collection(h)) throw new Error(`${tenantName(t)}/${collection(h)}: ${res.statusCode}, not a 201 from the handler: ${text.slice(0, 300)}`);
      });
    }
  }
  const began = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    for (let job = work.shift(); job; job = work.shift()) await job();
  }));
  const touchSeconds = (performance.now() - began) / 1000;
  if (touchSeconds * 1000 >= IDLE_MS) console.log(`note: touching took longer than --tenant-idle, so the first tenants were released before the last was touched`);
  const touched = memoryOf(pid).rss;
  const isolatesTouched = await isolates();

  // Released: no isolate left, and every tenant's SQLite file closed (its WAL checkpointed and removed).
  const waitStarted = performance.now();
  const wal = (t: number) => join(data, `svc.${tenantName(t)}.sqlite-wal`);
  for (;;) {
    const open = Array.from({ length: TENANTS }, (_, t) => t).filter((t) => existsSync(wal(t))).length;
    const alive = await isolates();
    if (alive === 0 && open === 0) break;
    if (performance.now() - waitStarted > RELEASE_BOUND_MS) throw new Error(`not released after ${RELEASE_BOUND_MS} ms: ${alive} isolates, ${open} SQLite files open`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const releasedAfter = (performance.now() - began) / 1000;
  const atRelease = memoryOf(pid).rss;
  // The memory of disposed isolates goes back to the system over some seconds (V8 frees their
  // pages in the background): the figure is the RSS once it has stopped falling.
  const samples: number[] = [atRelease];
  const settleStarted = performance.now();
  while (performance.now() - settleStarted < SETTLE_BOUND_MS) {
    await new Promise((r) => setTimeout(r, 500));
    samples.push(memoryOf(pid).rss);
    const last = samples.slice(-SETTLED_SAMPLES);
    if (performance.now() - settleStarted < SETTLE_MIN_MS) continue;
    if (last.length === SETTLED_SAMPLES && Math.max(...last) - Math.min(...last) < SETTLED_BYTES) break;
  }
  const settledAfter = (performance.now() - settleStarted) / 1000;
  const idle = memoryOf(pid);

  console.log(`${TENANTS} tenants × ${HANDLERS} handlers, each touched once in ${touchSeconds.toFixed(1)} s; --tenant-idle ${IDLE_MS} ms`);
  console.log(`server RSS after touching all:  ${mb(touched).toFixed(1)} MB (${isolatesTouched} isolates)`);
  console.log(`server RSS at the release:      ${mb(atRelease).toFixed(1)} MB (0 isolates, every store closed, ${releasedAfter.toFixed(1)} s after the first request)`);
  console.log(`server RSS after idle release:  ${mb(idle.rss).toFixed(1)} MB (settled ${settledAfter.toFixed(1)} s later); peak ${mb(idle.hwm).toFixed(1)} MB`);
  if (last) console.log(`RESULT ${JSON.stringify({ check: `server RSS, ${TENANTS} tenants × ${HANDLERS} handlers touched once then idle`, value: mb(idle.rss), unit: 'MB', max: MAX_MB })}`);
}

try {
  console.log(`server RSS at start:            ${mb(memoryOf(pid).rss).toFixed(1)} MB`);
  for (let c = 1; c <= CYCLES; c++) {
    if (CYCLES > 1) console.log(`cycle ${c} of ${CYCLES}:`);
    await cycle(c === CYCLES);
  }
} catch (err) {
  console.error(server.output());
  throw err;
} finally {
  await pool.close();
  server.child.kill('SIGTERM');
  await server.exited;
  root.cleanup();
  rmSync(data, { recursive: true, force: true });
}
