// The sandbox alone, without HTTP: CPU per request of the isolate path, for a few handler shapes.
//
//   node bench/sandbox-micro.ts [requests=20000] [concurrency=4]
//
// Each request goes through createSandboxRuntime().serve() with a response sink over a stub
// ServerResponse, so the numbers are the sandbox's own cost: compile-cache check, isolate pool,
// the run call, runtime calls, the outcome. Reports µs of process CPU per request (all threads)
// and µs of isolate CPU per request (isolated-vm's cpuTime, summed over the pool).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveLimits } from '../src/exchange/limits.ts';
import { Logger } from '../src/exchange/log.ts';
import { createSandboxRuntime } from '../src/sandbox/runtime.ts';
import { stubExchange } from '../test/helpers/stub-exchange.ts';

const total = Number(process.argv[2] ?? 20000);
const concurrency = Number(process.argv[3] ?? 4);

const HANDLERS: Record<string, string> = {
  nothing: 'export function onRetrieve() {}\n',
  echo: "export function onRetrieve() { echo('member ' + zget('/request/params/echoId')); }\n",
  echo10: "export function onRetrieve() { for (let i = 0; i < 10; i++) echo('line ' + i + '\\n'); }\n",
  keys: "export function onRetrieve() { zput('/request/headers/out/x-a', zget('/request/headers/in/accept') ?? 'none'); zput('/mine', { a: [1, 2, 3] }); zput('/request/status', 202); }\n",
};

const dir = mkdtempSync(join(tmpdir(), 'svc-micro-'));
mkdirSync(join(dir, 'resources'));
for (const [name, code] of Object.entries(HANDLERS)) writeFileSync(join(dir, 'resources', `${name}.ts`), code);
const limits = resolveLimits({ maxIsolates: Number(process.env.MAX_ISOLATES ?? 4) });
const runtime = createSandboxRuntime({ name: 'micro', dir, limits, log: new Logger(() => {}) });

const exchange = (collection: string, i: number) =>
  stubExchange({ collection, id: String(i), handler: join(dir, 'resources', `${collection}.ts`), limits });

try {
  for (const name of Object.keys(HANDLERS)) {
    for (let i = 0; i < 500; i++) await runtime.serve(exchange(name, i)); // warm up
    let next = 0;
    const cpu0 = process.cpuUsage();
    const main0 = process.threadCpuUsage();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) await runtime.serve(exchange(name, next++));
      }),
    );
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const main = process.threadCpuUsage(main0);
    console.log(
      `${name.padEnd(8)} ${((total / ms) * 1000).toFixed(0).padStart(7)} req/s  ${(((cpu.user + cpu.system) / total)).toFixed(1).padStart(6)} µs CPU/req (main thread ${((main.user + main.system) / total).toFixed(1)})  ${((ms * 1000) / total).toFixed(1)} µs wall/req`,
    );
  }
} finally {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}
