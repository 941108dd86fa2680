// svc under a supervisor: each way of starting it runs Node with --no-node-snapshot, and SIGTERM to
// the process the supervisor started (npm, bin/svc.js) reaches the server, which drains and exits.

import t, { type Test } from 'tap';
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE, NODE_FLAGS, spawnListening, type ServerProcess } from '../helpers/process.ts';
import { makeApp, ROOT } from '../helpers/server.ts';

const SNAPSHOT_WARNING = /started without --no-node-snapshot/;

// A handler that is still running when the signal arrives: it writes, then works for a second.
const app = makeApp({
  models: { slow: { fields: { name: { type: 'string' } } } },
  resources: { 'slow.ts': "export function onList() {\n  echo('started ');\n  const end = Date.now() + 1000;\n  while (Date.now() < end);\n  echo('done');\n}\n" },
});
t.teardown(() => app.cleanup());
const serveArgs = ['--port', '0', '--app', app.dir, '--store', 'sqlite::memory:', '--cpu-limit', '5000'];

/** Whether something accepts connections on the URL's port. */
function answers(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** A request to the slow collection; resolves with its first words, then with the whole body. */
function slowRequest(url: string): { started: Promise<void>; body: Promise<string> } {
  let started!: () => void;
  const first = new Promise<void>((resolve) => (started = resolve));
  const body = fetch(`${url}/resources/slow`).then(async (res) => {
    let text = '';
    for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      started();
    }
    return text;
  });
  body.catch(() => started());
  return { started: first, body };
}

/**
 * SIGTERM to `server.child` while a request is in flight: the request completes, the process exits
 * 0 within the drain time (10 s) and nothing listens on the port any more.
 */
async function stopsCleanly(t: Test, server: ServerProcess): Promise<void> {
  t.equal((await fetch(`${server.url}/healthz`)).status, 200);
  const request = slowRequest(server.url);
  await request.started;
  const signalled = performance.now();
  server.child.kill('SIGTERM');
  t.equal(await request.body, 'started done', 'the request in flight is finished');
  t.equal(await server.exited, 0, 'exit code 0');
  const ms = performance.now() - signalled;
  t.ok(ms < 10_000, `stopped ${ms.toFixed(0)} ms after SIGTERM`);
  const free = !(await answers(server.url));
  t.ok(free, 'the port is free: no server was left behind');
  if (!free) return; // a server left behind holds the output open
  await server.closed;
  t.match(server.output(), /SIGTERM: finishing in-flight requests/, 'the server itself got the signal');
  // The process ends through _exit after its 'exit' listeners (src/process-exit.ts): the log's
  // last lines, held up to 20 ms, are written first.
  t.match(server.output(), /GET \/resources\/slow 200 /, "the request log's last line was written before the exit");
}

t.test('npm start: SIGTERM to npm reaches the server', { skip: process.platform === 'win32' && 'npm runs scripts through cmd.exe there' }, async (t) => {
  // Its own process group, so that a server left behind by a failing run can still be ended.
  const server = await spawnListening('npm', ['start', '--', ...serveArgs], { detached: true });
  t.teardown(() => {
    try {
      process.kill(-server.child.pid!, 'SIGKILL');
    } catch {
      // the group is gone: nothing was left behind
    }
  });
  await stopsCleanly(t, server);
  t.notMatch(server.output(), SNAPSHOT_WARNING, 'Node runs with --no-node-snapshot');
});

t.test('bin/svc.js: started without the flags, it restarts Node with them, in the same process', async (t) => {
  const server = await spawnListening(NODE, [join(ROOT, 'bin/svc.js'), 'serve', ...serveArgs]);
  t.teardown(() => void server.child.kill('SIGKILL'));
  if (process.platform === 'linux') {
    const argv = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
    for (const flag of NODE_FLAGS) t.ok(argv.includes(flag), `${flag}: the server runs as ${argv.join(' ')}`);
  }
  await stopsCleanly(t, server);
  t.notMatch(server.output(), SNAPSHOT_WARNING, 'Node runs with --no-node-snapshot');
});

t.test('bin/svc.js: restarted with the flags, it keeps the environment (the variables configure it)', async (t) => {
  // Without its arguments: its port, store and log level come from the environment alone.
  const server = await spawnListening(NODE, [join(ROOT, 'bin/svc.js'), 'serve', '--app', app.dir], {
    env: { ...process.env, PORT: '0', SVC_STORE: 'sqlite::memory:', SVC_LOG_LEVEL: 'warn', SVC_CPU_LIMIT: '5000' },
  });
  t.teardown(() => void server.child.kill('SIGKILL'));
  t.not(new URL(server.url).port, '8080', `PORT=0: a free port (${server.url})`);
  t.match(server.output(), /store sqlite::memory:/, 'SVC_STORE');
  t.equal((await fetch(`${server.url}/healthz`)).status, 200);
  t.notMatch(server.output(), /serves slow/, 'SVC_LOG_LEVEL=warn: no info lines');
});

t.test('bin/svc.js keeps a flag given with another value (--max-semi-space-size=16)', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const server = await spawnListening(NODE, ['--max-semi-space-size=16', join(ROOT, 'bin/svc.js'), 'serve', ...serveArgs]);
  t.teardown(() => void server.child.kill('SIGKILL'));
  const argv = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
  t.ok(argv.includes('--max-semi-space-size=16'), `the given value: ${argv.join(' ')}`);
  t.notOk(argv.some((a) => a.startsWith('--max-semi-space-size=') && a !== '--max-semi-space-size=16'), 'no second value added');
  t.ok(argv.includes('--no-node-snapshot'), 'the missing flags are still added');
  await stopsCleanly(t, server);
});

t.test('node src/cli.ts without --no-node-snapshot warns', async (t) => {
  const server = await spawnListening(NODE, ['--disable-warning=ExperimentalWarning', join(ROOT, 'src/cli.ts'), 'serve', ...serveArgs]);
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
  await server.closed;
  t.match(server.output(), SNAPSHOT_WARNING);
});
