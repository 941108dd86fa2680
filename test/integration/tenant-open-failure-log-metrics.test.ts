// README "Operations": the request log has `tenant` "once the Host named one", and /metrics counts
// requests by tenant (empty only "for requests no app served (probes, unknown tenants, requests
// that could not be parsed)"). A tenant that exists but cannot be opened (its svc.json does not
// match: every request of it is 500 app-settings-invalid, README "App settings") had its requests
// logged without `tenant` and counted under the empty tenant, so that an operator could not tell
// from the log or the metrics which tenant was failing.

import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { LogRecord } from '../../src/exchange/log.ts';
import { getWithHost } from '../helpers/raw-http.ts';
import { makeApp, startServer } from '../helpers/server.ts';

t.test('a tenant that cannot be opened is named in the request log and the metrics', async (t) => {
  const template = makeApp({ models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
  const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
  cpSync(template.dir, join(tenants, 'acme'), { recursive: true });
  cpSync(template.dir, join(tenants, 'globex'), { recursive: true });
  writeFileSync(join(tenants, 'globex', 'svc.json'), JSON.stringify({ bogus: 1 }));
  const records: LogRecord[] = [];
  const server = await startServer({ tenantsDir: tenants, log: (r) => records.push(r) });
  t.teardown(async () => {
    await server.close();
    template.cleanup();
    rmSync(tenants, { recursive: true, force: true });
  });

  const failed = await getWithHost(server.port, 'globex.example.com', '/resources/notes');
  t.equal(failed.status, 500);
  t.match(JSON.parse(failed.text), { code: 'app-settings-invalid' });
  t.equal((await getWithHost(server.port, 'acme.example.com', '/resources/notes')).status, 200);
  await new Promise<void>((resolve) => {
    const check = (): void => (records.filter((r) => r.fields.status !== undefined).length >= 2 ? resolve() : void setImmediate(check));
    check();
  });

  const record = records.find((r) => r.fields.problem === 'app-settings-invalid');
  t.equal(record?.fields.tenant, 'globex', 'the log record names the tenant');
  const metrics = (await getWithHost(server.port, 'x', '/metrics')).text;
  t.match(metrics, /svc_requests_total\{tenant="globex",status="500"\} 1\n/, "counted as globex's");
  t.notMatch(metrics, /svc_requests_total\{tenant="",status="500"\}/, 'not as no tenant');
});
