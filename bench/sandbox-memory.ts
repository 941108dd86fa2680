// Memory of loaded tenant apps: resident memory per app with 10 handlers, after each served a few requests and went idle.
//
//   node --expose-gc bench/sandbox-memory.ts [apps=10]
//
// Each app gets its own sandbox runtime (as each tenant does); every handler compiles and runs in
// the app's isolate. The report is the growth of the process's resident memory divided by the
// number of apps, after garbage collection.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveLimits } from '../src/exchange/limits.ts';
import { Logger } from '../src/exchange/log.ts';
import type { HandlerRuntime } from '../src/exchange/runtime.ts';
import { createSandboxRuntime } from '../src/sandbox/runtime.ts';
import { stubExchange } from '../test/helpers/stub-exchange.ts';

const APPS = Number(process.argv[2] ?? 10);
const HANDLERS = 10;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const scope = (name: string, dir: string) => ({ name, dir, limits: resolveLimits(), log: new Logger(() => {}) });

const root = mkdtempSync(join(tmpdir(), 'svc-memory-'));
const runtimes: HandlerRuntime[] = [];
try {
  // Warm up esbuild and the code paths once, outside the measurement.
  const warm = join(root, 'warm');
  mkdirSync(join(warm, 'resources'), { recursive: true });
  writeFileSync(join(warm, 'resources', 'w.ts'), "export function onList() { echo('w'); }\n");
  const warmRuntime = createSandboxRuntime(scope('warm', warm));
  await warmRuntime.serve(stubExchange({ collection: 'w', handler: join(warm, 'resources', 'w.ts') }));
  await warmRuntime.close();

  gc();
  await new Promise((r) => setTimeout(r, 200));
  gc();
  const before = process.memoryUsage();
  for (let a = 0; a < APPS; a++) {
    const dir = join(root, `app${a}`);
    mkdirSync(join(dir, 'resources'), { recursive: true });
    const runtime = createSandboxRuntime(scope(`app${a}`, dir));
    runtimes.push(runtime);
    for (let h = 0; h < HANDLERS; h++) {
      const file = join(dir, 'resources', `c${h}.ts`);
      writeFileSync(
        file,
        `// handler ${h} of app ${a}\nconst greet = (n: string) => 'hello ' + n;\nexport function onList() {\n  zput('/request/headers/out/x-h', '${h}');\n  echo(greet(String(zget('/request/method'))));\n}\nexport function onRetrieve() { svc.delegate(); }\n`,
      );
      for (let i = 0; i < 5; i++) await runtime.serve(stubExchange({ collection: `c${h}`, handler: file }));
    }
  }
  gc();
  await new Promise((r) => setTimeout(r, 500));
  gc();
  const after = process.memoryUsage();
  const mb = (n: number) => (n / 1e6).toFixed(2);
  console.log(`${APPS} apps × ${HANDLERS} handlers, idle: rss +${mb(after.rss - before.rss)} MB total, ${mb((after.rss - before.rss) / APPS)} MB per app`);
  console.log(`  (host heap +${mb(after.heapUsed - before.heapUsed)} MB, external +${mb(after.external - before.external)} MB)`);
  console.log(`RESULT ${JSON.stringify({ check: `resident memory per idle app with ${HANDLERS} handlers (${APPS} apps)`, value: (after.rss - before.rss) / APPS / 1e6, unit: 'MB', max: 8 })}`);
} finally {
  for (const r of runtimes) await r.close();
  rmSync(root, { recursive: true, force: true });
}
