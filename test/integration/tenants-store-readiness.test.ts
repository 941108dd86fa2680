// Tenant mode opens each tenant's store on its first request, and nothing checked the store before
// (a SQLite path where no file can be made, too: the README's image note "a host directory mounted
// on /var/lib/svc must be writable by uid 1000" failed only on each tenant's request):
// - README "Configuration": "A MongoDB that cannot be reached at start-up stops the server with one
//   line naming the store URI (without its password), unless --wait-for-store is given", and a bad
//   store URI stops it (`svc serve` exits 1, "as for an invalid store URI"). With --tenants both
//   started, and every tenant request was 503 store-unavailable ("retry in 5 s") for ever.
// - README "Operations" / SPEC §9: `/readyz` is 503 while the store cannot be reached ("/readyz
//   reports it"); the Configuration table: with --wait-for-store "/readyz is 503 and requests are
//   503 store-unavailable until it connects". With --tenants /readyz said ready while MongoDB was
//   down: before any tenant's request (no store open to ping), and after a tenant's request failed
//   (the tenant that could not open leaves the registry, so there was again nothing to ping).
//   compose.yaml runs exactly this (--tenants, MongoDB, --wait-for-store) and its health check is
//   /readyz.

import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE, NODE_FLAGS, spawnServer } from '../helpers/process.ts';
import { ROOT } from '../helpers/server.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';
import { callWithHost } from '../helpers/raw-http.ts';

const TENANTS = join(ROOT, 'tenants');
const db = await startMongoWireServer();
t.teardown(() => db.stop());
await db.stop(); // the database is down when svc starts
const uri = (auth = '') => `mongodb://${auth}127.0.0.1:${db.port}/svc?serverSelectionTimeoutMS=500&connectTimeoutMS=500`;

/** A request to tenant `host` at the server of `url`. */
const call = (url: string, host: string, method: string, path: string, body?: unknown) => callWithHost(new URL(url).port, host, method, path, body);

/** `svc …args`: its exit code and output, or 'listening' (and it is stopped) once it serves. */
function run(...args: string[]): Promise<{ code: number | string | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [...NODE_FLAGS, join(ROOT, 'src/cli.ts'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      if (/listening on/.test(out)) {
        child.kill('SIGKILL');
        resolve({ code: 'listening', out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code, signal) => resolve({ code: code ?? signal, out }));
  });
}

t.test('--tenants with an unknown store URI does not start', async (t) => {
  const { code, out } = await run('serve', '--tenants', TENANTS, '--port', '0', '--store', 'postgres://x');
  t.equal(code, 1, out);
  t.match(out, /unknown store URI/);
  t.notMatch(out, /listening/);
});

t.test('--tenants with a SQLite path no tenant file can be made at does not start', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'file'), '');
  for (const store of ['sqlite:', `sqlite:${join(dir, 'file', 'svc.sqlite')}`]) {
    const { code, out } = await run('serve', '--tenants', TENANTS, '--port', '0', '--store', store);
    t.equal(code, 1, `${store}: ${out}`);
    t.notMatch(out, /listening/);
  }
});

t.test('--tenants without --wait-for-store: a MongoDB that cannot be reached stops it at start, no password', async (t) => {
  const { code, out } = await run('serve', '--tenants', TENANTS, '--port', '0', '--store', uri('admin:hunter2@'));
  t.equal(code, 1, out);
  t.notMatch(out, /listening/);
  t.match(out, /^svc: .*cannot reach MongoDB/m);
  t.notMatch(out, /hunter2|\n\s+at /, 'no password, no stack');
});

t.test('--tenants --wait-for-store: /readyz is 503 while MongoDB is down, before and after a tenant request', async (t) => {
  const server = await spawnServer(['--tenants', TENANTS, '--store', uri(), '--wait-for-store']);
  t.teardown(() => void server.child.kill('SIGKILL'));
  // The start-up checks end first (readyz is 503 for them too): wait for their summary line.
  await server.waitFor(/tenant directories in/);
  const before = await fetch(`${server.url}/readyz`);
  t.equal(before.status, 503, 'not ready before any tenant was asked for');
  t.match(await before.json(), { code: 'not-ready' });
  const refused = await call(server.url, 'acme.localhost', 'GET', '/resources/notes');
  t.equal(refused.status, 503);
  t.match(refused.json, { code: 'store-unavailable' });
  t.equal((await fetch(`${server.url}/readyz`)).status, 503, 'not ready after it');

  await db.start();
  for (let i = 0; ; i++) {
    const res = await fetch(`${server.url}/readyz`);
    await res.arrayBuffer();
    if (res.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const created = await call(server.url, 'acme.localhost', 'POST', '/resources/notes', { title: 'hello' });
  t.equal(created.status, 201);
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});

t.test('--tenants: /readyz is 503 once MongoDB has gone and a tenant could not open', async (t) => {
  await db.start();
  const server = await spawnServer(['--tenants', TENANTS, '--store', uri()]);
  t.teardown(() => void server.child.kill('SIGKILL'));
  await server.waitFor(/tenant directories in/);
  await db.stop();
  const refused = await call(server.url, 'globex.localhost', 'GET', '/resources/notes');
  t.equal(refused.status, 503);
  t.match(refused.json, { code: 'store-unavailable' });
  const ready = await fetch(`${server.url}/readyz`);
  t.equal(ready.status, 503, 'the store cannot be reached: not ready');
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});
