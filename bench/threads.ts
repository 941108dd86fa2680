// `node bench/threads.ts <path> [seconds] [server]`: one svc server of bench/scenarios.ts loaded with
// one request path, then the CPU each of its threads used (Linux /proc), in cores: where a row's
// time goes across the event loop, worker threads and libuv's pool. Not for figures.

import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from './load.ts';
import { commandLineScenario, SERVERS } from './scenarios.ts';
import { Seeds } from './seed.ts';
import { startServer } from './servers.ts';

const [target = '/resources/employees?count=20', seconds = '5', serverName = 'svc'] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'svc-threads-'));
const spec = SERVERS[serverName];
if (!spec) throw new Error(`no server ${serverName}`);
const server = await startServer(serverName, spec, { seeds: new Seeds(dir, dir), dataDir: dir, nodeArgs: [], log: (l) => console.error(`threads: ${l}`) });

/** CPU ticks (user, system) by thread name and id. */
function ticks(pid: number): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${name} ${tid}`, [Number(fields[11]), Number(fields[12])]);
    } catch {
      // the thread ended
    }
  }
  return out;
}

const scenario = commandLineScenario(target, serverName, 'threads');
await runLoad(server.url, scenario, { seconds: 1, connections: 32 });
const before = ticks(server.pid);
const started = performance.now();
const m = await runLoad(server.url, scenario, { seconds: Number(seconds), connections: 32 });
const after = ticks(server.pid);
const secs = (performance.now() - started) / 1000;
await server.stop();
console.log(`${target}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50.toFixed(2)} ms, client ${m.clientCpu.toFixed(2)} cores`);
let total = 0;
for (const [thread, [user, system]] of after) {
  const [user0, system0] = before.get(thread) ?? [0, 0];
  const u = (user - user0) / 100 / secs;
  const s = (system - system0) / 100 / secs;
  total += u + s;
  if (u + s >= 0.01) console.log(`${(u + s).toFixed(2).padStart(6)} cores  ${thread} (user ${u.toFixed(2)}, system ${s.toFixed(2)})`);
}
console.log(`${total.toFixed(2).padStart(6)} cores  server in all; ${((total / m.rps) * 1e6).toFixed(0)} µs per request`);
