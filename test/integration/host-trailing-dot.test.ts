// A Host written fully qualified, with one trailing dot (`acme.example.com.`, RFC 1034 §3.1, valid
// in a URL by RFC 3986 §3.2.2), names the same host as without it. The Host pattern refused it:
// 400 invalid-header for a client that resolves names that way. It is served as the name without
// the dot, the same tenant, and URLs are written without it; `.`, `..` and a second dot stay 400,
// and `127.0.0.1.` is the address it is to a URL, no tenant's.

import t from 'tap';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { raw } from '../helpers/raw-http.ts';
import { appServer, makeApp, startServer } from '../helpers/server.ts';

const APP = { models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } };

const template = makeApp(APP);
const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
for (const name of ['acme', '127']) cpSync(template.dir, join(tenants, name), { recursive: true });
const server = await startServer({ tenantsDir: tenants });
t.teardown(async () => {
  await server.close();
  template.cleanup();
  rmSync(tenants, { recursive: true, force: true });
});

function request(port: number, host: string, head: string, body = ''): ReturnType<typeof raw> {
  return raw(port, `${head} HTTP/1.1\r\nHost: ${host}\r\n${body ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : ''}Connection: close\r\n\r\n${body}`);
}

t.test("a trailing dot names the same tenant, and URLs are written without it", async (t) => {
  const port = server.port;
  const created = await request(port, `acme.localhost.:${port}`, 'POST /resources/notes', '{"text":"fqdn"}');
  t.equal(created.status, 201);
  t.match(created.head, new RegExp(`\\r\\nlocation: http://acme\\.localhost:${port}/resources/notes/1\\r\\n`, 'i'));
  for (const host of ['acme.localhost', 'acme.localhost.', `acme.localhost.:${port}`, 'ACME.Example.COM.']) {
    const res = await request(port, host, 'GET /resources/notes');
    t.equal(res.status, 200, host);
    t.match(JSON.parse(res.body), [{ text: 'fqdn' }], `${host}: acme's notes`);
  }
  const feed = await request(port, `acme.localhost.:${port}`, 'GET /resources/notes?format_as=atom');
  t.equal(feed.status, 200);
  t.match(feed.body, `http://acme.localhost:${port}/resources/notes/1`, 'Atom links are written without the dot');
  t.notMatch(feed.body, /localhost\.[:/]/);
});

t.test('`.`, `..`, two dots and a dot after an IP literal stay 400 invalid-header', async (t) => {
  for (const host of ['.', '..', '.:8080', 'acme.localhost..', 'acme..', `acme.localhost..:${server.port}`, '[::1].', '[::1].:8080', '1.2.3.4.5.']) {
    const res = await request(server.port, host, 'GET /resources/notes');
    t.equal(res.status, 400, host);
    t.match(JSON.parse(res.body), { code: 'invalid-header' }, host);
  }
});

t.test('an IPv4 address with a trailing dot is an address, and names no tenant', async (t) => {
  for (const host of ['127.0.0.1.', `127.0.0.1.:${server.port}`, '127.1.']) {
    const res = await request(server.port, host, 'GET /resources/notes');
    t.equal(res.status, 404, host);
    t.match(JSON.parse(res.body), { code: 'tenant-not-found' }, host);
  }
});

t.test('with one app, a name with a trailing dot is served', async (t) => {
  const single = await appServer(t, APP);
  for (const host of ['localhost.', `localhost.:${single.port}`, 'api.example.com.:8443']) {
    const res = await request(single.port, host, 'POST /resources/notes', '{"text":"x"}');
    t.equal(res.status, 201, host);
    t.match(res.head, new RegExp(`\\r\\nlocation: http://${host.replace('.:', ':').replace(/\.$/, '').replace(/\./g, '\\.')}/resources/notes/\\d+\\r\\n`, 'i'), host);
  }
});
