// An unreachable MongoDB at start-up: one clear line and exit 1 (no stack, no password), or with
// --wait-for-store a server that answers /readyz 503 until the database is there, then serves.

import t from 'tap';
import { NODE, NODE_FLAGS, spawnServer } from '../helpers/process.ts';
import { EXAMPLE_APP, send } from '../helpers/server.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/server.ts';

const db = await startMongoWireServer();
t.teardown(() => db.stop());
await db.stop(); // the database is down when svc starts
const uri = (auth = '') => `mongodb://${auth}127.0.0.1:${db.port}/svc?serverSelectionTimeoutMS=500&connectTimeoutMS=500`;

t.test('without --wait-for-store: one line naming the problem, no password, exit 1', async (t) => {
  const run = promisify(execFile);
  const err = await run(NODE, [...NODE_FLAGS, join(ROOT, 'src/cli.ts'), 'serve', '--app', EXAMPLE_APP, '--port', '0', '--store', uri('admin:hunter2@')]).then(
    () => undefined,
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  t.ok(err, 'it did not start');
  t.equal(err!.code, 1);
  const lines = err!.stderr.trim().split('\n');
  t.equal(lines.length, 1, err!.stderr);
  t.match(lines[0], /^svc: /);
  t.notMatch(err!.stderr, /hunter2|\n\s+at /, 'no password, no stack');
});

t.test('with --wait-for-store: up at once, not ready until the database is, then serving', async (t) => {
  const server = await spawnServer(['--app', EXAMPLE_APP, '--store', uri(), '--wait-for-store']);
  t.teardown(() => void server.child.kill('SIGKILL'));
  t.equal((await fetch(`${server.url}/healthz`)).status, 200, 'alive');
  const notReady = await fetch(`${server.url}/readyz`);
  t.equal(notReady.status, 503);
  t.match(await notReady.json(), { code: 'not-ready' });
  const refused = await fetch(`${server.url}/resources/departments`);
  t.equal(refused.status, 503, 'a request is told to retry, not hung');
  t.match(refused.headers.get('retry-after'), /^\d+$/);

  await db.start();
  for (let i = 0; ; i++) {
    const res = await fetch(`${server.url}/readyz`);
    const text = await res.text();
    if (res.status === 200) break;
    if (i % 50 === 0) t.comment(`readyz ${res.status} ${text}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const created = await send(`${server.url}/resources/departments`, 'POST', { name: 'Research' });
  t.equal(created.status, 201);
  t.match(await created.json(), { id: 1, name: 'Research' });
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});
