// Noisy neighbour: one tenant's requests each spin to the CPU limit; how much slower does
// another tenant's simple handler get? The victim's p99 with the abuser loaded, over its p99 alone.
//
//   node bench/noisy-neighbour.ts [seconds=5]
//
// The server runs in a child process (`svc serve --tenants`); the load generator is this process.
// Prints both measurements and a `RESULT {json}` line for `npm run bench`.

import { newPool, runLoad } from './load.ts';
import { spawnServer } from '../test/helpers/process.ts';
import { makeApp } from '../test/helpers/server.ts';

const SECONDS = Number(process.argv[2] ?? 5);
const MODEL = JSON.stringify({ fields: { text: { type: 'string' } } });
const root = makeApp({
  files: {
    'victim/models/notes.json': MODEL,
    'victim/resources/notes.ts': "export function onList() { zput('/request/headers/out/x-seen', 'yes'); echo('ok'); }\n",
    'abuser/models/notes.json': MODEL,
    'abuser/resources/notes.ts': 'export function onList() { for (;;) {} }\n',
  },
});
const server = await spawnServer(['--tenants', root.dir, '--store', 'sqlite::memory:', '--log-level', 'warn']);
const pools: ReturnType<typeof newPool>[] = [];
try {
  const scenario = (tenant: string, expect: number) => ({ name: tenant, server: '', group: '', method: 'GET' as const, path: '/resources/notes', headers: { host: `${tenant}.localhost` }, expect });
  const victimPool = newPool(server.url, 8);
  const abuserPool = newPool(server.url, 16);
  pools.push(victimPool, abuserPool);
  await runLoad(victimPool, scenario('victim', 200), { connections: 8, seconds: 1 }); // warm-up
  const alone = await runLoad(victimPool, scenario('victim', 200), { connections: 8, seconds: SECONDS });
  const abuse = runLoad(abuserPool, scenario('abuser', 503), { connections: 16, seconds: SECONDS + 1 });
  const noisy = await runLoad(victimPool, scenario('victim', 200), { connections: 8, seconds: SECONDS });
  const abuser = await abuse;
  console.log(`victim alone:        ${alone.rps.toFixed(0)} req/s, p50 ${alone.p50.toFixed(2)} ms, p99 ${alone.p99.toFixed(2)} ms, errors ${alone.errors}`);
  console.log(`victim with abuser:  ${noisy.rps.toFixed(0)} req/s, p50 ${noisy.p50.toFixed(2)} ms, p99 ${noisy.p99.toFixed(2)} ms, errors ${noisy.errors}`);
  console.log(`abuser (503 each):   ${abuser.rps.toFixed(0)} req/s, errors ${abuser.errors}`);
  console.log(`RESULT ${JSON.stringify({ check: "victim tenant's p99 with a tenant spinning to its CPU limit, ÷ its p99 alone", value: noisy.p99 / alone.p99, unit: '×', max: 3 })}`);
} finally {
  await Promise.all(pools.map((p) => p.close()));
  server.child.kill('SIGTERM');
  await server.exited;
  root.cleanup();
}
