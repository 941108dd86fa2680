// Tenant mode (SPEC §10): routing by the Host's first label, separate data, tenants added and removed live.

import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tenantsServer } from '../helpers/server.ts';
import { callWithHost } from '../helpers/raw-http.ts';

const call = callWithHost;

const server = await tenantsServer(t, ['acme', 'globex'], { models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
const { tenants } = server;

t.test('requests are routed by the first label of Host, and tenants share no data', async (t) => {
  t.equal((await call(server.port, 'acme.example.com', 'POST', '/resources/notes', { text: 'a' })).status, 201);
  t.equal((await call(server.port, 'acme.example.com:8080', 'POST', '/resources/notes', { text: 'b' })).status, 201);
  t.equal((await call(server.port, 'globex.example.com', 'POST', '/resources/notes', { text: 'g' })).status, 201);
  const acme = await call(server.port, 'acme.example.com', 'GET', '/resources/notes');
  t.same((acme.json as { id: number; text: string }[]).map((m) => [m.id, m.text]), [[1, 'a'], [2, 'b']]);
  const globex = await call(server.port, 'globex.localhost', 'GET', '/resources/notes');
  t.same((globex.json as { id: number; text: string }[]).map((m) => [m.id, m.text]), [[1, 'g']], 'ids start at 1 per tenant');
});

t.test('an unknown tenant is 404', async (t) => {
  const res = await call(server.port, 'initech.example.com', 'GET', '/resources/notes');
  t.equal(res.status, 404);
  t.match(res.json, { code: 'tenant-not-found' });
  t.equal((await call(server.port, 'Bad_Name.example.com', 'GET', '/resources/notes')).status, 404);
  t.equal((await call(server.port, 'initech.example.com', 'GET', '/healthz')).status, 200, 'health does not depend on the tenant');
});

t.test('--public-url with {tenant} names each tenant in its URLs', async (t) => {
  const pub = await startServer({ tenantsDir: tenants, store: 'sqlite::memory:', publicUrl: 'https://{tenant}.api.example.com' });
  t.teardown(() => pub.close());
  const { request } = await import('node:http');
  const location = await new Promise<string | undefined>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: pub.port, method: 'POST', path: '/resources/notes', headers: { host: 'globex.localhost', 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.headers.location);
    });
    req.on('error', reject);
    req.end('{"text":"p"}');
  });
  t.equal(location, 'https://globex.api.example.com/resources/notes/1');
});

t.test('tenants are added and removed without a restart', async (t) => {
  server.addTenant('initech');
  t.equal((await call(server.port, 'initech.example.com', 'GET', '/resources/notes')).status, 200);
  rmSync(join(tenants, 'initech'), { recursive: true, force: true });
  t.equal((await call(server.port, 'initech.example.com', 'GET', '/resources/notes')).status, 404);
});
