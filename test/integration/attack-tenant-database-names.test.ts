// Attack: a tenant named after another tenant's SQLite companion file. SQLite keeps a database's
// log and shared memory beside it, named after it (`<file>-wal`, `<file>-shm`, `<file>-journal`),
// and a store path without an extension (`sqlite:/var/lib/svc/svc`) gave tenant `acme` the file
// `svc.acme`: tenant `acme-wal`'s database, `svc.acme-wal`, was then acme's log. Whichever opened
// first, one of them broke: acme-wal could not open its file while acme ran ("file is not a
// database", 503), or acme wrote its commits into acme-wal's database and, once restarted, could
// not open its own. A tenant's file name ends in an extension, so no tenant's file is another's.

import t from 'tap';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getWithHost } from '../helpers/raw-http.ts';
import { makeApp, startServer } from '../helpers/server.ts';

const NAMES = ['acme', 'acme-wal', 'acme-shm', 'acme-journal'];
const template = makeApp({ models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
for (const name of NAMES) cpSync(template.dir, join(tenants, name), { recursive: true });
const data = mkdtempSync(join(tmpdir(), 'svc-tenant-names-'));
t.teardown(() => {
  template.cleanup();
  rmSync(tenants, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});
/** A store path without an extension. */
const store = `sqlite:${join(data, 'svc')}`;

function create(port: number, tenant: string, text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/resources/notes', headers: { host: `${tenant}.localhost`, 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ text }));
  });
}

async function texts(port: number, tenant: string): Promise<{ status: number; texts: unknown }> {
  const res = await getWithHost(port, `${tenant}.localhost`, '/resources/notes');
  return { status: res.status, texts: res.status === 200 ? (JSON.parse(res.text) as { text: string }[]).map((m) => m.text) : res.text };
}

t.test("no tenant's database is another tenant's -wal, -shm or -journal file, whichever opens first", async (t) => {
  const first = await startServer({ tenantsDir: tenants, store });
  // The companions' namesakes first, then acme (whose log and shared memory they would be), then
  // each again, so that every tenant writes while the others have their files open.
  for (const name of [...NAMES.slice(1), 'acme']) t.equal((await create(first.port, name, `${name} 1`)).status, 201, `${name} created a member`);
  for (const name of ['acme', ...NAMES.slice(1)]) t.equal((await create(first.port, name, `${name} 2`)).status, 201, `${name} created a second member`);
  for (const name of NAMES) t.same(await texts(first.port, name), { status: 200, texts: [`${name} 1`, `${name} 2`] }, `${name} reads its own members only`);
  await first.close();

  // Reopened the other way round: acme first.
  const second = await startServer({ tenantsDir: tenants, store });
  t.teardown(() => second.close());
  for (const name of NAMES) t.same(await texts(second.port, name), { status: 200, texts: [`${name} 1`, `${name} 2`] }, `${name} has its members after a restart`);
  const files = readdirSync(data).filter((f) => !/-(wal|shm)$/.test(f)).sort();
  t.same(files, NAMES.map((n) => `svc.${n}.sqlite`).sort(), 'one database file per tenant, each ending in an extension');
});
