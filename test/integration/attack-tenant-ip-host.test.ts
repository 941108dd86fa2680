// Attack: a tenant named like the first part of an IP address (`127`, `10`, `192`), or `localhost`.
// A tenant is the first label of the Host's name, but an IPv4 address was split like a name:
// `Host: 127.0.0.1:8080` was tenant `127`'s. Whatever reaches the server by address then reached
// that tenant's handlers: a proxy that passes its upstream's address as Host (nginx's default
// `proxy_set_header Host $proxy_host` for `proxy_pass http://127.0.0.1:8080`) sent every tenant's
// users, their bodies and Authorization headers, to tenant `127`. A request without Host (HTTP/1.0)
// went to tenant `localhost`. An address names no tenant, as an IPv6 address already did not, and
// neither does a request without Host: 404 tenant-not-found.

import t from 'tap';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getWithHost, raw } from '../helpers/raw-http.ts';
import { makeApp, startServer } from '../helpers/server.ts';

const template = makeApp({ models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
for (const name of ['127', '10', '0x7f', 'localhost']) cpSync(template.dir, join(tenants, name), { recursive: true });
const server = await startServer({ tenantsDir: tenants });
t.teardown(async () => {
  await server.close();
  template.cleanup();
  rmSync(tenants, { recursive: true, force: true });
});

t.test('a Host that is an IPv4 address names no tenant', async (t) => {
  for (const host of ['127.0.0.1', `127.0.0.1:${server.port}`, '127.1', '10.0.0.5:8080', '0x7f.0.0.1', '0x7f.1']) {
    const res = await getWithHost(server.port, host, '/resources/notes');
    t.equal(res.status, 404, host);
    t.match(JSON.parse(res.text), { code: 'tenant-not-found' }, host);
  }
});

t.test('a request without Host names no tenant', async (t) => {
  const res = await raw(server.port, 'GET /resources/notes HTTP/1.0\r\n\r\n');
  t.equal(res.status, 404);
  t.match(JSON.parse(res.body), { code: 'tenant-not-found' });
});

t.test('the same tenants are served by name', async (t) => {
  for (const host of ['127.example.com', `10.example.com:${server.port}`, '0x7f.example.com', 'localhost', `localhost:${server.port}`]) {
    t.equal((await getWithHost(server.port, host, '/resources/notes')).status, 200, host);
  }
});
