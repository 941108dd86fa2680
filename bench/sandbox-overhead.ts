// Sandbox overhead, quickly: one server process, four collections over the same model, same data.
//
//   node bench/sandbox-overhead.ts [seconds=5] [connections=32]
//
// direct    the direct runtime's path: `svc.delegate();` is served without an isolate
// delegate  `export function onRetrieve() { svc.delegate(); }`: the isolate, a delegate, no logic
// logic     onRetrieve that delegates, then sets a header (the bench target's "handler with logic")
// echo      onRetrieve that echoes a short text: the isolate without the default handler
//
// Each row: req/s and p50 of GET /resources/<c>/<random id>, and the ratio to `direct`.

import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { newPool, runLoad } from './load.ts';
import type { Scenario } from './scenarios.ts';
import { NODE_FLAGS } from '../src/node-flags.ts';

const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 32);
const MEMBERS = 1000;
const ROOT = new URL('..', import.meta.url).pathname;

const HANDLERS: Record<string, string> = {
  direct: 'svc.delegate();\n',
  delegate: 'export function onRetrieve() { svc.delegate(); }\nexport function onCreate() { svc.delegate(); }\n',
  logic: "export function onRetrieve() {\n  svc.delegate();\n  zput('/request/headers/out/x-seen', 'yes');\n}\nexport function onCreate() { svc.delegate(); }\n",
  echo: "export function onRetrieve() { echo('member ' + zget('/request/params/echoId')); }\nexport function onCreate() { svc.delegate(); }\n",
};

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-sandbox-'));
mkdirSync(join(dir, 'models'));
mkdirSync(join(dir, 'resources'));
for (const [name, code] of Object.entries(HANDLERS)) {
  copyFileSync(join(ROOT, 'app/models/employees.json'), join(dir, 'models', `${name}.json`));
  writeFileSync(join(dir, 'resources', `${name}.ts`), code);
}

const script = `
  import { start } from ${JSON.stringify(join(ROOT, 'src/main.ts'))};
  import { sandboxRuntime } from ${JSON.stringify(join(ROOT, 'src/sandbox/runtime.ts'))};
  import { DEFAULT_LIMITS } from ${JSON.stringify(join(ROOT, 'src/config.ts'))};
  const r = await start({ app: ${JSON.stringify(dir)}, port: 0, host: '127.0.0.1', store: 'sqlite::memory:', dev: false, limits: DEFAULT_LIMITS }, sandboxRuntime);
  console.log('listening on ' + r.url);
  process.on('SIGUSR2', () => {
    const all = process.cpuUsage(), main = process.threadCpuUsage();
    console.log('cpu ' + (all.user + all.system) + ' ' + (main.user + main.system));
  });
  process.on('SIGTERM', () => r.close().then(() => process.exit(0)));
`;
const child = spawn(process.execPath, [...NODE_FLAGS, ...(process.env.SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
let cpuReply: ((v: [number, number]) => void) | undefined;
const url = await new Promise<string>((resolve) => {
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const m = /listening on (\S+)/.exec(line);
    if (m) resolve(m[1]!);
    const c = /^cpu (\d+) (\d+)$/.exec(line);
    if (c) cpuReply?.([Number(c[1]), Number(c[2])]);
  });
});
/** The server's CPU so far, in µs: all threads, and its main thread. */
function cpuSplit(): Promise<[number, number]> {
  return new Promise((resolve) => {
    cpuReply = resolve;
    child.kill('SIGUSR2');
  });
}

try {
  const pool = newPool(url, connections);
  for (const name of Object.keys(HANDLERS)) {
    for (let i = 0; i < MEMBERS; i++) {
      const res = await pool.request({ method: 'POST', path: `/resources/${name}`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `m${i}`, level: i % 10 }) });
      await res.body.text();
      if (res.statusCode !== 201) throw new Error(`seed ${name}: ${res.statusCode}`);
    }
  }
  const rows: { name: string; rps: number; p50: number; cpuUs: number; mainUs: number }[] = [];
  for (const round of [0, 1]) {
    for (const name of Object.keys(HANDLERS).filter((n) => !process.env.ONLY || process.env.ONLY.split(',').includes(n) || n === 'direct')) {
      let n = 0;
      const scenario: Scenario = { name, server: 'x', group: 'x', method: 'GET', path: () => `/resources/${name}/${1 + (n++ * 7919) % MEMBERS}` };
      const [all0, main0] = await cpuSplit();
      const m = await runLoad(url, scenario, { connections, seconds });
      const [all1, main1] = await cpuSplit();
      const cpuUs = (all1 - all0) / m.requests;
      const mainUs = (main1 - main0) / m.requests;
      if (m.errors) throw new Error(`${name}: ${m.error}`);
      if (round === 1) rows.push({ name, rps: m.rps, p50: m.p50, cpuUs, mainUs });
    }
  }
  const base = rows.find((r) => r.name === 'direct')!;
  console.log(`connections ${connections}, ${seconds} s per row (second of two rounds)`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(9)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  ratio ${(r.rps / base.rps).toFixed(2)}  p50 +${(r.p50 - base.p50).toFixed(2)} ms  server CPU ${r.cpuUs.toFixed(0)} µs/req (main thread ${r.mainUs.toFixed(0)})`);
  }
  await pool.close();
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
