// Attack: a tenant makes its files huge. A model file was read whole and parsed on the event loop
// however large it was (a gigabyte took every tenant's requests with it while it was read), and so
// was svc.json. Each is now refused over 1 MiB, naming the file and the bound, without being read:
// model-invalid for that collection, app-settings-invalid for the app; other tenants are served.

import t from 'tap';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logSink } from '../../src/exchange/log.ts';
import { getWithHost } from '../helpers/raw-http.ts';
import { makeApp, startServer } from '../helpers/server.ts';

const MiB = 1024 * 1024;
const BOUND = /is over 1 MiB \(1048576 bytes\), the most the server reads of it: make it smaller/;

const template = makeApp({
  models: { notes: { fields: { text: { type: 'string' } } } },
  resources: { 'notes.ts': 'svc.delegate();\n', 'big.ts': 'svc.delegate();\n', 'huge.ts': 'svc.delegate();\n' },
});
const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
for (const name of ['alpha', 'beta', 'gamma']) cpSync(template.dir, join(tenants, name), { recursive: true });
// Valid, and a byte over the bound: read whole, it would be served.
const big = JSON.stringify({ fields: { text: { type: 'string', description: '' } } });
writeFileSync(join(tenants, 'alpha/models/big.json'), big.replace('""', `"${'x'.repeat(MiB + 1 - big.length)}"`));
const settings = JSON.stringify({ env: { A: '' } });
writeFileSync(join(tenants, 'beta/svc.json'), settings.replace('""', `"${'x'.repeat(MiB + 1 - settings.length)}"`));

/** Resolves once the start-up checks are done: they read every tenant's files too. */
const { promise: checked, resolve: checkedNow } = Promise.withResolvers<void>();
const log = logSink('text', 'info', (line) => {
  if (/tenant directories in /.test(line)) checkedNow();
});
const server = await startServer({ tenantsDir: tenants, log });
t.teardown(async () => {
  await server.close();
  template.cleanup();
  rmSync(tenants, { recursive: true, force: true });
});
await checked;

/** Bytes this process has read through read(2) and the like so far; undefined without /proc. */
function bytesRead(): number | undefined {
  if (!existsSync('/proc/self/io')) return undefined;
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

t.test('a model file over 1 MiB is model-invalid naming the file and the bound; the app serves its other models', async (t) => {
  const res = await getWithHost(server.port, 'alpha.localhost', '/resources/big');
  t.equal(res.status, 500);
  t.match(JSON.parse(res.text), { code: 'model-invalid', detail: /^models\/big\.json is invalid: the file / });
  t.match(JSON.parse(res.text).detail, BOUND);
  t.equal((await getWithHost(server.port, 'alpha.localhost', '/resources/notes')).status, 200);
});

t.test('a model file of a gigabyte is not read', async (t) => {
  const huge = join(tenants, 'alpha/models/huge.json');
  writeFileSync(huge, '');
  truncateSync(huge, 1024 * MiB); // sparse: no disk, but a gigabyte of reads
  const before = bytesRead();
  const res = await getWithHost(server.port, 'alpha.localhost', '/resources/huge');
  t.equal(res.status, 500);
  t.match(JSON.parse(res.text), { code: 'model-invalid', detail: BOUND });
  if (before !== undefined) t.ok(bytesRead()! - before < 64 * MiB, 'the server read none of it');
  t.equal((await getWithHost(server.port, 'gamma.localhost', '/resources/notes')).status, 200, 'another tenant is served');
});

t.test('a svc.json over 1 MiB is app-settings-invalid naming the file and the bound; other tenants are served', async (t) => {
  const res = await getWithHost(server.port, 'beta.localhost', '/resources/notes');
  t.equal(res.status, 500);
  t.match(JSON.parse(res.text), { code: 'app-settings-invalid', detail: /^svc\.json is over 1 MiB/ });
  t.match(JSON.parse(res.text).detail, BOUND);
  t.equal((await getWithHost(server.port, 'gamma.localhost', '/resources/notes')).status, 200);
});
