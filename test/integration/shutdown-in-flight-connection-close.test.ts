// SIGTERM "stops accepting connections, lets in-flight requests finish" (README "Configuration",
// "Without a container"): the connection of a request in flight is closed once it is answered. A
// request that began after SIGTERM was answered `Connection: close`, but one in flight when it came
// was answered `Connection: keep-alive` and its connection then closed under the client: a client
// that sends its next request on it at once (a pool, a pipeline) has it cut, without knowing
// whether a POST was done. The answer must say `Connection: close`.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../helpers/process.ts';
import { makeApp } from '../helpers/server.ts';
import { upstream } from '../helpers/upstream.ts';

t.test('a request in flight at SIGTERM is answered with Connection: close', async (t) => {
  let arrived: (res: ServerResponse) => void;
  const held = new Promise<ServerResponse>((resolve) => (arrived = resolve));
  // The handler waits on this upstream until the test lets it answer.
  const port = await upstream(t, (_req, res) => arrived(res));
  const up = `http://127.0.0.1:${port}`;
  const app = makeApp({
    models: { calls: { fields: { name: { type: 'string' } } } },
    resources: { 'calls.ts': `export async function onCreate() {\n  await (await fetch('${up}/slow')).text();\n  svc.delegate();\n}\n` },
    files: { 'svc.json': JSON.stringify({ fetch: { allow: [up] } }) },
  });
  const data = mkdtempSync(join(tmpdir(), 'svc-data-'));
  t.teardown(() => {
    app.cleanup();
    rmSync(data, { recursive: true, force: true });
  });
  const server = await spawnServer(['--app', app.dir, '--store', `sqlite:${join(data, 'svc.sqlite')}`]);
  t.teardown(() => void server.child.kill('SIGKILL'));

  const agent = new Agent({ keepAlive: true });
  t.teardown(() => agent.destroy());
  const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: new URL(server.url).port, method: 'POST', path: '/resources/calls', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ name: 'x' }));
  });
  const upstreamResponse = await held;
  server.child.kill('SIGTERM');
  await server.waitFor(/SIGTERM: finishing in-flight requests/);
  upstreamResponse.end('ok');
  const res = await answer;
  t.equal(res.status, 201, 'the request in flight finishes');
  t.equal(res.connection, 'close', 'and says its connection closes');
  t.equal(await server.exited, 0);
});
