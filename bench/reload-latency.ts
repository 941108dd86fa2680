// First request after a handler file changes (compile + run), through a real server.
//
//   node bench/reload-latency.ts [changes=10]
//
// Each change writes a new version of a handler with logic (so it runs in an isolate), then times
// the first request that sees it. Prints the timings and a `RESULT {json}` line for `npm run bench`.

import { writeFileSync } from 'node:fs';
import { makeApp, startServer } from '../test/helpers/server.ts';
import { median } from './report.ts';

const CHANGES = Number(process.argv[2] ?? 10);
const app = makeApp({
  models: { notes: { fields: { text: { type: 'string' } } } },
  resources: { 'notes.ts': "export function onList() { echo('v0'); }\n" },
});
const server = await startServer({ appDir: app.dir });
try {
  const url = server.at('/resources/notes');
  // The first request ever also starts the app's first isolate: not part of a reload.
  await (await fetch(url)).text();
  const times: number[] = [];
  for (let v = 1; v <= CHANGES; v++) {
    writeFileSync(`${app.dir}/resources/notes.ts`, `// version ${v}\nexport function onList() {\n  zput('/request/headers/out/x-version', '${v}');\n  echo('v${v}');\n}\n`);
    const t0 = performance.now();
    const text = await (await fetch(url)).text();
    times.push(performance.now() - t0);
    if (text !== `v${v}`) throw new Error(`version ${v} not served: ${text}`);
    // A second request on the same version: the cached bundle.
    await (await fetch(url)).text();
  }
  const p50 = median(times);
  console.log(`first request after a change: ${times.map((t) => t.toFixed(1)).join(', ')} ms; median ${p50.toFixed(1)} ms`);
  console.log(`RESULT ${JSON.stringify({ check: 'first request after a handler file changes (compile + run)', value: p50, unit: 'ms', max: 50 })}`);
} finally {
  await server.close();
  app.cleanup();
}
