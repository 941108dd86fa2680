// Attack: a tenant's svc.json that is a named pipe (FIFO). svc.json is read when a tenant opens, on
// the event loop, and opening a FIFO waits for a writer: the whole server stopped, every tenant's
// requests with it, /healthz too. Only a regular file is read, and it is opened without waiting.
// The server runs in a process of its own, so that the test can tell a server that stopped.

import t from 'tap';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getWithHost } from '../helpers/raw-http.ts';
import { spawnServer } from '../helpers/process.ts';
import { makeApp } from '../helpers/server.ts';

if (process.platform === 'win32') {
  t.pass('skipped: no mkfifo on Windows');
  process.exit(0);
}

const template = makeApp({ models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
cpSync(template.dir, join(tenants, 'alpha'), { recursive: true });
cpSync(template.dir, join(tenants, 'beta'), { recursive: true });
t.teardown(() => {
  template.cleanup();
  rmSync(tenants, { recursive: true, force: true });
});

const server = await spawnServer(['--tenants', tenants, '--store', 'sqlite::memory:']);
t.teardown(async () => {
  // SIGKILL: a process stuck in open(2) runs no signal handler.
  server.child.kill('SIGKILL');
  await server.exited;
});
const port = Number(new URL(server.url).port);
// The start-up checks read each tenant's svc.json too: the pipe is made once they are done.
await server.waitFor(/2 tenant directories in /);
execFileSync('mkfifo', [join(tenants, 'alpha', 'svc.json')]);

/** A GET that fails, rather than waits for ever, when the server has stopped answering. */
function get(host: string, path: string): Promise<{ status: number; text: string }> {
  return Promise.race([
    getWithHost(port, host, path),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer for ${host}${path}: the server stopped`)), 30_000).unref()),
  ]);
}

t.test('a svc.json that is a FIFO is refused, and the server goes on serving', async (t) => {
  const alpha = await get('alpha.localhost', '/resources/notes');
  t.equal(alpha.status, 500);
  t.match(JSON.parse(alpha.text), { code: 'app-settings-invalid', detail: /svc\.json is not a regular file/ });
  t.equal((await get('beta.localhost', '/resources/notes')).status, 200, 'another tenant is served');
  t.equal((await get('localhost', '/healthz')).status, 200, 'and so is /healthz');
});
