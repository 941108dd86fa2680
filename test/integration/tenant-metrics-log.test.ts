// What operators see per tenant. A request no app served (an unknown tenant, a probe) was counted in
// /metrics as tenant `app`, which is also a valid tenant's name: any client could add 404s to that
// tenant. The request log left out `tenant` on answers given before the request's collection was
// known (tenant-busy, collection-not-found), though /metrics had it. And with a list of CORS
// origins, a response to an origin not on it had no `Vary: Origin`, so a shared cache could serve
// it to one that is.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { LogRecord } from '../../src/exchange/log.ts';
import { getWithHost } from '../helpers/raw-http.ts';
import { makeApp, startServer } from '../helpers/server.ts';

t.test('per tenant: metrics, the request log, Vary', async (t) => {
  const template = makeApp({ models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
  const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
  cpSync(template.dir, join(tenants, 'app'), { recursive: true });
  cpSync(template.dir, join(tenants, 'acme'), { recursive: true });
  const records: LogRecord[] = [];
  const server = await startServer({ tenantsDir: tenants, cors: ['https://good.example'], log: (r) => records.push(r) });
  t.teardown(async () => {
    await server.close();
    template.cleanup();
    rmSync(tenants, { recursive: true, force: true });
  });
  const closed = (n: number): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => (records.filter((r) => r.fields.status !== undefined).length >= n ? resolve() : void setImmediate(check));
      check();
    });

  for (let i = 0; i < 3; i++) t.equal((await getWithHost(server.port, 'nope.example.com', '/resources/notes')).status, 404, 'an unknown tenant: 404');
  t.equal((await getWithHost(server.port, 'acme.example.com', '/healthz')).status, 200);
  t.equal((await getWithHost(server.port, 'acme.example.com', '/resources/missing')).status, 404, 'an unknown collection: 404');
  t.equal((await getWithHost(server.port, 'app.example.com', '/resources/notes')).status, 200, 'the tenant called app');
  await closed(6);

  const metrics = (await getWithHost(server.port, 'x', '/metrics')).text;
  t.match(metrics, /svc_requests_total\{tenant="app",status="200"\} 1\n/, 'tenant app: its one request');
  t.notMatch(metrics, /tenant="app",status="404"/, 'no 404s counted for tenant app');
  t.match(metrics, /svc_requests_total\{tenant="",status="404"\} 3\n/, 'unknown tenants: the empty tenant');
  t.match(metrics, /svc_requests_total\{tenant="acme",status="404"\} 1\n/, "acme's unknown collection");

  const missing = records.find((r) => r.fields.problem === 'collection-not-found');
  t.equal(missing?.fields.tenant, 'acme', 'the log record of an unknown collection names the tenant');
  t.equal(records.find((r) => r.fields.problem === 'tenant-not-found')?.fields.tenant, undefined, 'no tenant for an unknown one');

  const allowed = await getWithHost(server.port, 'acme.example.com', '/resources/notes', { origin: 'https://good.example' });
  t.equal(allowed.headers['access-control-allow-origin'], 'https://good.example');
  t.equal(allowed.headers.vary, 'Origin, Accept');
  for (const headers of [{ origin: 'https://evil.example' }, {}] as Record<string, string>[]) {
    const other = await getWithHost(server.port, 'acme.example.com', '/resources/notes', headers);
    t.equal(other.headers['access-control-allow-origin'], undefined, `${headers.origin ?? 'no Origin'}: not allowed`);
    t.equal(other.headers.vary, 'Origin, Accept', `${headers.origin ?? 'no Origin'}: Vary: Origin all the same`);
  }
});

t.test('tenant-busy names the tenant in the log', async (t) => {
  const template = makeApp({
    models: { slow: { fields: { text: { type: 'string' } } } },
    resources: { 'slow.ts': "export function onList() { echo('started'); const end = Date.now() + 300; while (Date.now() < end); }\n" },
  });
  const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
  cpSync(template.dir, join(tenants, 'acme'), { recursive: true });
  const records: LogRecord[] = [];
  const server = await startServer({ tenantsDir: tenants, tenantConcurrency: 1, log: (r) => records.push(r), limits: { cpuLimitMs: 5000 } });
  t.teardown(async () => {
    await server.close();
    template.cleanup();
    rmSync(tenants, { recursive: true, force: true });
  });
  // The first request holds acme's only slot while it runs; the second is answered at once.
  const first = new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/resources/slow', headers: { host: 'acme.x' } }, (res) => {
      res.once('data', () => resolve());
      res.resume();
    });
    req.on('error', reject);
    req.end();
  });
  await first;
  t.equal((await getWithHost(server.port, 'acme.x', '/resources/slow')).status, 503, 'tenant-busy');
  await new Promise<void>((resolve) => {
    const check = (): void => (records.some((r) => r.fields.problem === 'tenant-busy') ? resolve() : void setImmediate(check));
    check();
  });
  t.equal(records.find((r) => r.fields.problem === 'tenant-busy')?.fields.tenant, 'acme');
});
