// A process that ends itself for a failure (over --max-rss past its grace, or a fatal isolate error:
// sandbox/runtime.ts `endProcess`) stops gracefully and then exits 1, not 0: a supervisor that
// restarts on failure (the README's systemd unit, `Restart=on-failure`; Docker's `on-failure`)
// left a process that exited 0 down. A plain SIGTERM still exits 0 (test/integration/supervised.test.ts).

import t from 'tap';
import { spawnServer } from '../helpers/process.ts';
import { makeApp } from '../helpers/server.ts';

t.test('over --max-rss the process ends with exit code 1', async (t) => {
  const app = makeApp({ models: { notes: { fields: { text: { type: 'text' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
  t.teardown(() => app.cleanup());
  // An idle server's anonymous memory is well over 16 MiB: the bound is passed from the start.
  const server = await spawnServer(['--app', app.dir, '--store', 'sqlite::memory:', '--max-rss', '16']);
  t.teardown(() => server.child.kill('SIGKILL'));
  t.equal(await server.exited, 1, 'exit code 1');
  t.match(server.output(), /over --max-rss 16 MiB/, 'the log says why');
  t.match(server.output(), /SIGTERM: finishing in-flight requests/, 'it stopped gracefully first');
});
