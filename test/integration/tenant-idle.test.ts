// Idle tenants (issue 10): a tenant without requests for --tenant-idle releases its isolates and
// its store handle, and its next request opens both again with the data as it was.

import t, { type Test } from 'tap';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../../src/tenancy/app.ts';
import type { Release } from '../../src/tenancy/tenants.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';
import { makeApp, startServer, type TestServer } from '../helpers/server.ts';

/** Short, so that the test idles quickly; the assertions do not depend on it being met on time. */
const IDLE_MS = 200;

// A handler that runs in the isolate (the one-line `svc.delegate()` would not need one).
const tenants = makeApp({
  files: {
    'acme/models/notes.json': JSON.stringify({ fields: { text: { type: 'string' } } }),
    'acme/resources/notes.ts': "zput('/request/headers/out/x-handled', 'yes');\nsvc.delegate();\n",
  },
});
for (const name of ['globex', 'initech']) {
  tenants.write(`${name}/models/notes.json`, JSON.stringify({ fields: { text: { type: 'string' } } }));
  tenants.write(`${name}/resources/notes.ts`, "zput('/request/headers/out/x-handled', 'yes');\nsvc.delegate();\n");
}
const data = mkdtempSync(join(tmpdir(), 'svc-idle-data-'));
t.teardown(() => {
  tenants.cleanup();
  rmSync(data, { recursive: true, force: true });
});

async function server(t: Test, store: string): Promise<TestServer> {
  const s = await startServer({ tenantsDir: tenants.dir, store, tenantIdleMs: IDLE_MS });
  t.teardown(() => s.close());
  return s;
}

/** The next release, failing after a bound far beyond the idle time (a stuck test says why, rather than hang). */
const released = (s: TestServer) => once(s.apps, 'released', { signal: AbortSignal.timeout(20_000) }) as Promise<[App, Release]>;

/** A request to tenant `name` (fetch cannot set Host). */
function call(s: TestServer, name: string, method: string, body?: unknown): Promise<{ status: number; headers: Record<string, unknown>; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: s.port, method, path: '/resources/notes', headers: { host: `${name}.localhost`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, json: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** `cond` polled every 10 ms, failing after a bound far beyond what it needs (so a busy machine does not fail it). */
async function until(cond: () => boolean, what: string, boundMs = 20_000): Promise<void> {
  const end = performance.now() + boundMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

t.test('an idle tenant releases its isolates and store, and its next request reopens them with its data', async (t) => {
  const s = await server(t, `sqlite:${join(data, 'svc.sqlite')}`);
  const first = released(s);
  const created = await call(s, 'acme', 'POST', { text: 'kept' });
  t.equal(created.status, 201);
  t.equal(created.headers['x-handled'], 'yes', 'the handler ran in an isolate');

  const [app, reason] = await first;
  t.equal(app.name, 'acme');
  t.equal(reason, 'idle');
  t.equal(s.apps.isolates(), 0, 'no isolate is left');
  t.match(await (await fetch(s.at('/metrics'))).text(), /^svc_isolates 0$/m, 'the isolate gauge says so');
  t.notOk(s.apps.openTenants().includes('acme'), 'the tenant left the registry');
  await t.rejects(app.store.ping(), /closed/, 'its store handle is closed');
  t.notOk(existsSync(join(data, 'svc.acme.sqlite-wal')), 'SQLite checkpointed and removed its log on close');

  const second = released(s);
  const list = await call(s, 'acme', 'GET');
  t.equal(list.status, 200);
  t.equal(list.headers['x-handled'], 'yes', 'a new isolate ran the handler');
  t.same((list.json as { id: number; text: string }[]).map((m) => [m.id, m.text]), [[1, 'kept']], 'the data is intact');
  const [again] = await second;
  t.not(again, app, 'the tenant was opened afresh, and idled again');
  t.match((await call(s, 'acme', 'POST', { text: 'next' })).headers.location, /\/resources\/notes\/2$/, 'ids carry on');
});

t.test('once a tenant is released, the C heap is trimmed and the trim is logged (glibc)', async (t) => {
  if (typeof (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime !== 'string') {
    console.log('skipped: the C heap trim after a release (this C library is not glibc)');
    return;
  }
  const trims: string[] = [];
  let trimmed: () => void = () => {};
  const logged = new Promise<void>((resolve) => (trimmed = resolve));
  const s = await startServer({
    tenantsDir: tenants.dir,
    store: `sqlite:${join(data, 'svc.sqlite')}`,
    tenantIdleMs: IDLE_MS,
    log: ({ msg }) => {
      if (!msg.startsWith('memory: malloc_trim')) return;
      trims.push(msg);
      trimmed();
    },
  });
  t.teardown(() => s.close());
  const idle = released(s);
  t.equal((await call(s, 'globex', 'GET')).headers['x-handled'], 'yes', 'the handler ran in an isolate');
  await idle;
  // Due a second after the release (or 5 s after an earlier trim of this process): bounded far beyond.
  await Promise.race([logged, new Promise((_, reject) => setTimeout(() => reject(new Error('no trim logged')), 20_000).unref())]);
  t.match(trims[0], /^memory: malloc_trim after releases: resident [\d.]+ → [\d.]+ MiB \([\d.]+ ms\)$/);
});

/** A POST to tenant `name` whose body is sent only when `finish()` is called: it holds the tenant meanwhile. */
async function slowPost(s: TestServer, name: string): Promise<{ finish(): Promise<number> }> {
  const body = JSON.stringify({ text: 'slow' });
  const req = request({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/resources/notes', headers: { host: `${name}.localhost`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, 3));
  await until(() => s.apps.openTenants().includes(name), `tenant ${name} is open`);
  return {
    finish() {
      req.end(body.slice(3));
      return answered;
    },
  };
}

t.test('a request in flight keeps its tenant open past the idle time', async (t) => {
  const s = await server(t, `sqlite:${join(data, 'svc.sqlite')}`);
  let releases = 0;
  s.apps.on('released', () => releases++);
  // A request whose body arrives slowly holds the app from its headers to its answer.
  const post = await slowPost(s, 'globex');
  // Whatever the machine's load, nothing may close the tenant while the request holds it.
  await new Promise((r) => setTimeout(r, IDLE_MS * 5));
  t.equal(releases, 0, 'not released under the request');
  t.ok(s.apps.openTenants().includes('globex'));
  const gone = released(s);
  t.equal(await post.finish(), 201);
  const [app] = await gone;
  t.equal(app.name, 'globex', 'released once the request was complete');
});

t.test('a volatile store (sqlite::memory:) keeps its data: only the isolates are released', async (t) => {
  const s = await server(t, 'sqlite::memory:');
  const idle = released(s);
  t.equal((await call(s, 'initech', 'POST', { text: 'in memory' })).status, 201);
  const [app] = await idle;
  t.equal(s.apps.isolates(), 0);
  await t.resolves(app.store.ping(), 'the store stays open: closing it would lose the data');
  const list = await call(s, 'initech', 'GET');
  t.equal(list.headers['x-handled'], 'yes');
  t.same((list.json as { text: string }[]).map((m) => m.text), ['in memory']);
});

t.test('on MongoDB, a released tenant gives back its share of the client without closing it under another', async (t) => {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  const s = await server(t, wire.uri);
  // globex holds the shared client (a request in flight) while acme is used and released.
  const post = await slowPost(s, 'globex');
  const gone = released(s);
  t.equal((await call(s, 'acme', 'POST', { text: 'in mongo' })).status, 201);
  const [app] = await gone;
  t.equal(app.name, 'acme');
  await t.rejects(app.store.ping(), /closed/, "acme's store is closed");
  t.equal(await post.finish(), 201, 'the other tenant still reaches the database');
  const list = await call(s, 'acme', 'GET');
  t.same((list.json as { text: string }[]).map((m) => m.text), ['in mongo'], 'reopened, with its data');
});
