// With --workers, SIGTERM drains every worker and the primary exits 0; a worker killed during its
// drain (by the OOM killer, say) is a failed stop, and the primary exits 1 so that a supervisor
// restarting on failure sees it. It exited 0 whatever its workers' exits were.

import { readFileSync } from 'node:fs';
import t from 'tap';
import { spawnServer } from '../helpers/process.ts';
import { makeApp } from '../helpers/server.ts';

t.test('--workers 2: a worker killed while draining makes the primary exit 1', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const app = makeApp({
    models: { slow: { fields: { name: { type: 'string' } } } },
    resources: { 'slow.ts': "export function onList() {\n  echo('started ');\n  const end = Date.now() + 4000;\n  while (Date.now() < end);\n  echo('done');\n}\n" },
  });
  t.teardown(() => app.cleanup());
  const server = await spawnServer(['--app', app.dir, '--store', `sqlite:${app.dir}/svc.sqlite`, '--workers', '2', '--cpu-limit', '5000']);
  t.teardown(() => void server.child.kill('SIGKILL'));
  const workers = readFileSync(`/proc/${server.child.pid}/task/${server.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  t.equal(workers.length, 2);
  // A request in flight on one of them keeps its drain going for seconds.
  const res = await fetch(`${server.url}/resources/slow`);
  const reader = res.body!.getReader();
  await reader.read(); // 'started '
  server.child.kill('SIGTERM');
  await server.waitFor(/SIGTERM: draining 2 workers/);
  for (const pid of workers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // The idle one may have stopped already.
    }
  }
  t.equal(await server.exited, 1, 'the primary exits 1');
  t.match(server.output(), /exited \(signal SIGKILL\) while stopping/);
  await reader.cancel().catch(() => {});
});
