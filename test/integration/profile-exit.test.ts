// A server started with `--cpu-prof` (bench/profile.ts) still writes its profile when SIGTERM
// stops it: Node writes it in the teardown that the usual `_exit` skips (src/process-exit.ts).

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { NODE, NODE_FLAGS, spawnListening } from '../helpers/process.ts';
import { EXAMPLE_APP, makeApp, ROOT } from '../helpers/server.ts';

t.test('SIGTERM after --cpu-prof: exit 0, and the profile is written', async (t) => {
  const data = makeApp({});
  t.teardown(() => data.cleanup());
  const profDir = join(data.dir, 'prof');
  const args = [...NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${profDir}`, join(ROOT, 'src/cli.ts'), 'serve', '--port', '0', '--app', EXAMPLE_APP, '--store', `sqlite:${data.dir}/svc.sqlite`];
  const server = await spawnListening(NODE, args, { env: process.env });
  t.teardown(() => void server.child.kill('SIGKILL'));
  t.equal((await fetch(`${server.url}/resources/departments`)).status, 200);
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0, server.output());
  // The main thread's, and one per worker thread (the store's writer).
  t.ok(readdirSync(profDir).some((f) => f.endsWith('.cpuprofile')), 'a .cpuprofile');
});
