// A server that says it listens can be stopped gracefully at once: its SIGTERM and SIGINT handlers
// are in place before the line is written (or, in a worker, before it tells the primary). Until
// Node has a listener for a signal, the signal ends the process at once (exit by signal, no drain),
// and whoever starts the server may send it as soon as it reads the line: an orchestrator rolling
// a deployment, or a test. A preload in the child reports, at the moment the line is written, how
// many listeners each signal has.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { spawnServer } from '../helpers/process.ts';
import { EXAMPLE_APP } from '../helpers/server.ts';

/** Written as a file: a preload reporting the signal listeners when the listening line or message goes out. */
const PROBE = `
const report = (what) => process.stderr.write('probe: ' + what + ': SIGTERM ' + process.listenerCount('SIGTERM') + ', SIGINT ' + process.listenerCount('SIGINT') + '\\n');
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).includes('svc listening on')) report('line');
  return write(chunk, ...rest);
};
if (process.send) {
  const send = process.send.bind(process);
  process.send = (message, ...rest) => {
    if (message?.type === 'svc:listening') report('message');
    return send(message, ...rest);
  };
}
`;

t.test('one process: both handlers are there when the line is written', async (t) => {
  const probe = join(t.testdir(), 'probe.cjs');
  writeFileSync(probe, PROBE);
  const server = await spawnServer(['--app', EXAMPLE_APP, '--store', 'sqlite::memory:'], { NODE_OPTIONS: `--require=${probe}` });
  t.teardown(() => void server.child.kill('SIGKILL'));
  const [, counts] = await server.waitFor(/probe: line: (.*)/);
  t.equal(counts, 'SIGTERM 1, SIGINT 1');
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0, 'and a SIGTERM right after it drains and exits 0');
});

t.test('--workers: each worker has both before it tells the primary it listens, the primary before its line', async (t) => {
  const dir = t.testdir();
  const probe = join(dir, 'probe.cjs');
  writeFileSync(probe, PROBE);
  const server = await spawnServer(['--app', EXAMPLE_APP, '--store', `sqlite:${join(dir, 'svc.sqlite')}`, '--workers', '2'], { NODE_OPTIONS: `--require=${probe}` });
  t.teardown(() => void server.child.kill('SIGKILL'));
  await server.waitFor(/(probe: message: .*\n[^]*){2}/);
  const reports = [...server.output().matchAll(/probe: message: (.*)/g)].map((m) => m[1]);
  t.same(reports, ['SIGTERM 1, SIGINT 1', 'SIGTERM 1, SIGINT 1']);
  const [, primary] = await server.waitFor(/probe: line: (.*)/);
  t.equal(primary, 'SIGTERM 1, SIGINT 1', 'and so has the primary when it writes the line');
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});
