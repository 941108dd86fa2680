// Attack: an entry of the tenants directory that is a link to itself (ELOOP). Its stat threw: `svc
// check --tenants` checked no tenant and failed with the host's path, the start-up summary of
// `svc serve --tenants` listed none, and a request whose Host named it was 500 internal-error. Now
// it is no tenant (as a link that leads nowhere is): the others are checked and served.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import { logSink } from '../../src/exchange/log.ts';
import { runSvc } from '../helpers/process.ts';
import { startServer } from '../helpers/server.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-tenant-loop-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, 'acme', 'models'), { recursive: true });
mkdirSync(join(root, 'acme', 'resources'));
writeFileSync(join(root, 'acme', 'models', 'notes.json'), JSON.stringify({ fields: { text: { type: 'string' } } }));
writeFileSync(join(root, 'acme', 'resources', 'notes.ts'), 'svc.delegate();\n');
symlinkSync('loop', join(root, 'loop'));

t.test('svc check --tenants checks the other tenants', async (t) => {
  const { code, out } = await runSvc(['check', '--tenants', root]);
  t.equal(code, 0, out);
  t.match(out, /1 tenants?, 1 models?, 1 handlers?: ok/);
  t.notMatch(out, /ELOOP|tmp/);
});

t.test('the start-up summary lists the others; a request naming it is an unknown tenant', async (t) => {
  const lines: string[] = [];
  const server = await startServer({ tenantsDir: root, log: logSink('text', 'info', (line) => lines.push(line)) });
  t.teardown(() => server.close());
  // /readyz is 503 until the start-up checks are done.
  while ((await fetch(server.at('/readyz'))).status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
  t.ok(lines.some((l) => /acme: serves notes/.test(l)), lines.join('\n'));
  t.notOk(lines.some((l) => /ELOOP|start-up checks failed/.test(l)));
  const get = (host: string) =>
    new Promise<{ status: number; code?: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path: '/resources/notes', headers: { host } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, code: (JSON.parse(body || '{}') as { code?: string }).code }));
      });
      req.on('error', reject);
      req.end();
    });
  t.same(await get('loop.localhost'), { status: 404, code: 'tenant-not-found' });
  t.equal((await get('acme.localhost')).status, 200);
});
