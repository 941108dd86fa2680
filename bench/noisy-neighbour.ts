// Noisy neighbour: how much slower does one tenant's simple handler get while another tenant
// abuses the server? The victim's p99 with the abuser loaded, over its p99 alone, for each abuse:
//   spin    every request spins until its CPU limit (503 handler-cpu-limit);
//   memory  every request fills its isolate's heap (503 handler-memory-limit);
//   filter  a filter no index can answer (`txt__icontains`) over 60 members of 1 MB, no handler code.
//
//   node bench/noisy-neighbour.ts [seconds=5] [abuses=spin,memory,filter]
//
// The server runs in a child process (`svc serve --tenants`); the load generator is this process,
// and shares the machine's cores with it. Prints the measurements and one `RESULT {json}` line
// per abuse for `npm run bench`.

import { join } from 'node:path';
import { newPool, runLoad } from './load.ts';
import { spawnServer } from '../test/helpers/process.ts';
import { makeApp } from '../test/helpers/server.ts';

const SECONDS = Number(process.argv[2] ?? 5);
const ABUSES = (process.argv[3] ?? 'spin,memory,filter').split(',');
const MODEL = JSON.stringify({ fields: { text: { type: 'string' } } });
const BIG = JSON.stringify({ fields: { txt: { type: 'string', max_length: 1_000_000 } } });
/** Members of 1 MB the filter abuse reads through. */
const BIG_MEMBERS = 60;

const ABUSE: Record<string, { path: string; expect: number; what: string }> = {
  spin: { path: '/resources/spin', expect: 503, what: 'a tenant spinning to its CPU limit' },
  memory: { path: '/resources/hoard', expect: 503, what: 'a tenant filling its isolate memory' },
  filter: { path: '/resources/big?txt__icontains=zzz', expect: 200, what: `a tenant filtering ${BIG_MEMBERS} members of 1 MB without an index` },
};

const root = makeApp({
  files: {
    'victim/models/notes.json': MODEL,
    'victim/resources/notes.ts': "export function onList() { zput('/request/headers/out/x-seen', 'yes'); echo('ok'); }\n",
    'abuser/models/spin.json': MODEL,
    'abuser/resources/spin.ts': 'export function onList() { for (;;) {} }\n',
    'abuser/models/hoard.json': MODEL,
    'abuser/resources/hoard.ts': 'export function onList() { const hoard = []; for (;;) hoard.push(new Array(100_000).fill(Math.random())); }\n',
    'abuser/models/big.json': BIG,
    'abuser/resources/big.ts': 'svc.delegate();\n',
  },
});
// A file store, as in production: scanning queries run on reader threads, which an in-memory
// database cannot share.
const server = await spawnServer(['--tenants', root.dir, '--store', `sqlite:${join(root.dir, 'svc.sqlite')}`, '--log-level', 'warn', '--max-body', String(2 * 1024 * 1024)]);
const pools: ReturnType<typeof newPool>[] = [];
try {
  // For seeding; the load itself runs on load.ts's own connections.
  const abuserPool = newPool(server.url, 16);
  pools.push(abuserPool);
  if (ABUSES.includes('filter')) {
    for (let i = 0; i < BIG_MEMBERS; i++) {
      const res = await abuserPool.request({
        method: 'POST',
        path: '/resources/big',
        headers: { host: 'abuser.localhost', 'content-type': 'application/json' },
        body: JSON.stringify({ txt: String.fromCharCode(97 + (i % 25)).repeat(1_000_000) }),
      });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`seeding the big members: ${res.statusCode} ${text}`);
    }
  }
  const scenario = (tenant: string, path: string, expect: number) => ({ name: tenant, server: '', group: '', method: 'GET' as const, path, headers: { host: `${tenant}.localhost` }, expect });
  const victim = scenario('victim', '/resources/notes', 200);
  await runLoad(server.url, victim, { connections: 8, seconds: 1 }); // warm-up
  for (const kind of ABUSES) {
    const abuse = ABUSE[kind];
    if (!abuse) throw new Error(`unknown abuse "${kind}" (spin, memory, filter)`);
    const alone = await runLoad(server.url, victim, { connections: 8, seconds: SECONDS });
    const abusing = runLoad(server.url, scenario('abuser', abuse.path, abuse.expect), { connections: 16, seconds: SECONDS + 1 });
    const noisy = await runLoad(server.url, victim, { connections: 8, seconds: SECONDS });
    const abuser = await abusing;
    console.log(`${kind}: victim alone:       ${alone.rps.toFixed(0)} req/s, p50 ${alone.p50.toFixed(2)} ms, p99 ${alone.p99.toFixed(2)} ms, errors ${alone.errors}`);
    console.log(`${kind}: victim with abuser: ${noisy.rps.toFixed(0)} req/s, p50 ${noisy.p50.toFixed(2)} ms, p99 ${noisy.p99.toFixed(2)} ms, errors ${noisy.errors}`);
    console.log(`${kind}: abuser (${abuse.expect} each):   ${abuser.rps.toFixed(0)} req/s, errors ${abuser.errors}`);
    console.log(`RESULT ${JSON.stringify({ check: `victim tenant's p99 beside ${abuse.what}, ÷ its p99 alone`, value: noisy.p99 / alone.p99, unit: '×', max: 3 })}`);
  }
} finally {
  await Promise.all(pools.map((p) => p.close()));
  server.child.kill('SIGTERM');
  await server.exited;
  root.cleanup();
}
