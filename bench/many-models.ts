// One tenant with many model files: what do its `GET /resources/types` and `openapi.json` cost, and
// what do they do to another tenant's requests meanwhile?
//
//   node bench/many-models.ts [models=1000] [seconds=3]
//
// The server runs in a child process (`svc serve --tenants`): tenant `big` has `models` model
// files of 5 fields each and a one-line `svc.delegate()` handler for each; tenant `victim` has one.
// Prints the time of each of `big`'s requests (the first, which reads every model file and, for
// OpenAPI, compiles every handler; then repeated ones), and the victim's latency alone and while
// one connection asks `big` for the same document over and over, from a process of its own (reading
// megabytes of answers would slow this one's measurement of the victim).

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Pool } from 'undici';
import { runLoad } from './load.ts';
import { median } from './report.ts';
import { spawnServer } from '../test/helpers/process.ts';
import { makeApp } from '../test/helpers/server.ts';

const scenario = (tenant: string, path: string, expect: number) => ({ name: tenant, server: '', group: '', method: 'GET' as const, path, headers: { host: `${tenant}.localhost` }, expect });

if (process.argv[2] === 'abuse') {
  // The abuser's process: node bench/many-models.ts abuse <url> <path> <status> <seconds>
  // undici reads megabytes of body much faster than load.ts's connections, which are made for small answers.
  const [url, path, status, seconds] = process.argv.slice(3) as [string, string, string, string];
  const pool = new Pool(url, { connections: 1 });
  const deadline = performance.now() + Number(seconds) * 1000;
  let requests = 0;
  let errors = 0;
  while (performance.now() < deadline) {
    const res = await pool.request({ method: 'GET', path, headers: { host: 'big.localhost' } });
    await res.body.arrayBuffer();
    if (res.statusCode === Number(status)) requests++;
    else errors++;
  }
  await pool.close();
  console.log(JSON.stringify({ rps: requests / Number(seconds), errors }));
  process.exit(0);
}

const MODELS = Number(process.argv[2] ?? 1000);
const SECONDS = Number(process.argv[3] ?? 3);
const MODEL = JSON.stringify({ fields: { a: { type: 'string' }, b: { type: 'integer' }, c: { type: 'date' }, d: { type: 'boolean' }, e: { type: 'text' } } });

const files: Record<string, string> = {
  'victim/models/notes.json': MODEL,
  'victim/resources/notes.ts': 'svc.delegate();\n',
};
for (let i = 0; i < MODELS; i++) {
  files[`big/models/m${i}.json`] = MODEL;
  files[`big/resources/m${i}.ts`] = 'svc.delegate();\n';
}
const root = makeApp({ files });
const server = await spawnServer(['--tenants', root.dir, '--store', `sqlite:${join(root.dir, 'svc.sqlite')}`, '--log-level', 'warn']);
// No time bound: the first OpenAPI request compiles every handler.
const pool = new Pool(server.url, { connections: 1, headersTimeout: 0, bodyTimeout: 0 });
try {
  const time = async (path: string) => {
    const t0 = performance.now();
    const res = await pool.request({ method: 'GET', path, headers: { host: 'big.localhost' } });
    const text = await res.body.text();
    return { ms: performance.now() - t0, status: res.statusCode, text };
  };
  const victim = scenario('victim', '/resources/notes', 200);
  await runLoad(server.url, victim, { connections: 4, seconds: 1 });
  const alone = await runLoad(server.url, victim, { connections: 4, seconds: SECONDS });
  console.log(`victim alone: p50 ${alone.p50.toFixed(2)} ms, p99 ${alone.p99.toFixed(2)} ms, ${alone.rps.toFixed(0)} req/s`);
  for (const path of ['/resources/types', '/resources/openapi.json']) {
    const first = await time(path);
    const again: number[] = [];
    for (let i = 0; i < 5; i++) again.push((await time(path)).ms);
    console.log(`${path} with ${MODELS} models: ${first.status}, ${first.text.length} characters; first ${first.ms.toFixed(0)} ms, then median ${median(again).toFixed(1)} ms (${again.map((t) => t.toFixed(1)).join(', ')})`);
    if (first.status !== 200) console.log(`  ${first.text.slice(0, 300)}`);
    const abusing = promisify(execFile)(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), 'abuse', server.url, path, String(first.status), String(SECONDS + 1)]);
    // The abuser's process starts and loads its code first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const noisy = await runLoad(server.url, victim, { connections: 4, seconds: SECONDS });
    const abuser = JSON.parse((await abusing).stdout) as { rps: number; errors: number };
    console.log(`victim beside ${path}: p50 ${noisy.p50.toFixed(2)} ms, p99 ${noisy.p99.toFixed(2)} ms, ${noisy.rps.toFixed(0)} req/s (big: ${abuser.rps.toFixed(1)} req/s, errors ${abuser.errors})`);
  }
} finally {
  await pool.close();
  server.child.kill('SIGTERM');
  root.cleanup();
}
