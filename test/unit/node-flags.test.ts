// Every way svc starts passes the flags of src/node-flags.ts (isolated-vm requires --no-node-snapshot
// on Node 20 and later), and the npm scripts that serve replace their shell with Node, so that
// SIGTERM reaches the server.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_FLAGS, nodeSnapshotDisabled } from '../../src/node-flags.ts';
import { ROOT } from '../helpers/server.ts';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

t.test('npm scripts that run svc pass the flag; those that serve exec Node', async (t) => {
  const running = Object.entries(pkg.scripts as Record<string, string>).filter(([, cmd]) => /\bnode\b.*\b(src\/cli\.ts|bench\/)/.test(cmd));
  t.same(running.map(([name]) => name).sort(), ['bench', 'check', 'start', 'svc']);
  for (const [name, cmd] of running) {
    t.match(cmd, new RegExp(`\\bnode ${NODE_FLAGS.join(' ')} `), `${name}: ${cmd}`);
    if (cmd.includes('src/cli.ts')) t.match(cmd, /^exec node /, `${name} replaces npm's shell with Node`);
  }
});

t.test('tap runs the in-process test servers with it', async (t) => {
  t.ok(pkg.tap['node-arg'].includes('--no-node-snapshot'));
  t.ok(process.execArgv.includes('--no-node-snapshot'), 'this test process has it');
});

t.test('the container, bin/svc.js and the spawned test servers pass it', async (t) => {
  const cmd = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  t.ok(cmd, 'ENTRYPOINT in exec form: Node is PID 1 and gets SIGTERM');
  t.same((JSON.parse(cmd![1]!) as string[]).slice(1, 1 + NODE_FLAGS.length), NODE_FLAGS, 'the flags, before bin/svc.js');
  t.match(readFileSync(join(ROOT, 'bin/svc.js'), 'utf8'), /const \{ NODE_FLAGS \} = await import\('\.\.\/src\/node-flags\.ts'\)/);
  t.ok(NODE_FLAGS.includes('--no-node-snapshot'));
});

t.test('svc serve knows whether Node has it, from the command line or NODE_OPTIONS', async (t) => {
  t.ok(nodeSnapshotDisabled(['--no-node-snapshot']));
  t.ok(nodeSnapshotDisabled([], '--max-old-space-size=512 --no-node-snapshot'));
  t.notOk(nodeSnapshotDisabled(['--disable-warning=ExperimentalWarning'], ''));
  t.notOk(nodeSnapshotDisabled([], '--no-node-snapshots'));
});
