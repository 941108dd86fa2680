// /metrics with --workers: svc_requests_total is a Prometheus counter, added up over the workers
// (README "Operations"). A counter must not go down while the server runs: Prometheus reads a
// decrease as a reset to 0, so rate()/increase() over it report every request counted so far as
// new ones. When a worker died and was replaced, its counts left the sum, and the counter fell.

import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { spawnServer } from '../helpers/process.ts';
import { EXAMPLE_APP, makeApp } from '../helpers/server.ts';

/** A GET on a connection of its own (no keep-alive), so that the primary hands each to the next worker. */
function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

/** svc_requests_total{tenant="app",status="200"} in the cluster's /metrics (0 when absent), and the text. */
async function served(url: string): Promise<{ n: number; text: string }> {
  const res = await fetch(`${url}/metrics`);
  const text = await res.text();
  const m = /^svc_requests_total\{tenant="app",status="200"\} (\d+)$/m.exec(text);
  return { n: m ? Number(m[1]) : 0, text };
}

t.test('--workers 2: a worker replaced after a crash does not take its counts out of svc_requests_total', async (t) => {
  const data = makeApp({});
  t.teardown(() => data.cleanup());
  const server = await spawnServer(['--app', EXAMPLE_APP, '--store', `sqlite:${data.dir}/svc.sqlite`, '--workers', '2']);
  t.teardown(() => void server.child.kill('SIGKILL'));

  const N = 20;
  const statuses: number[] = [];
  for (let i = 0; i < N; i++) statuses.push(await get(`${server.url}/resources/departments`));
  t.same(statuses, Array(N).fill(200));
  // Every worker's counts are in the sum once both answer (a busy machine may leave one out of a scrape).
  let before = await served(server.url);
  for (let tries = 0; before.n < N && tries < 50; tries++) before = await served(server.url);
  t.equal(before.n, N, `the ${N} requests, counted over both workers`);

  const children = readFileSync(`/proc/${server.child.pid}/task/${server.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  t.equal(children.length, 2, 'two worker processes');
  process.kill(children[0]!, 'SIGKILL');
  await server.waitFor(new RegExp(`worker ${children[0]} exited \\(signal SIGKILL\\); starting another`));
  const after = await served(server.url);
  t.ok(after.n >= before.n, `the counter went from ${before.n} to ${after.n} after a worker was replaced (a counter must not decrease):\n${after.text.split('\n').filter((l) => l.startsWith('svc_requests_total')).join('\n')}`);

  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});
