// `node bench/ab.ts <path> <rounds> <seconds> <server> '<node flags A>' '<node flags B>'`: one svc
// server of bench/scenarios.ts started twice, with two sets of Node flags, loaded alternately with
// one request path (GET; POST when the path starts with "POST "). Prints req/s and p50 per round
// and the median of B ÷ A, and the server's CPU time per request (user + system, /proc) and its
// median B ÷ A: for deciding between two settings on a noisy machine, not for figures. CPU per
// request varies less from run to run than req/s when a change saves a few microseconds.
// With AB_B_CHECKOUT=<dir>, server B runs that checkout's svc (e.g. a clone at an older commit,
// with its own node_modules): two versions of the code side by side. With AB_B_SERVER=<name>,
// server B is that server of bench/scenarios.ts (e.g. another model or handler). With
// AB_ALSO=<path> (e.g. 'POST /resources/employees'), a second load of AB_ALSO_CONNECTIONS
// connections (default 1) runs beside each measured one on the same server: a mixed workload.
// Its rate is printed too; CPU per request is then the server's CPU over both loads' requests.
// With AB_B_ENV='{"NAME":"value"}' (JSON), server B's environment has those too. AB_CONNECTIONS=<n>
// loads with n connections instead of 32 (1: the latency one request sees with no queue).
//
//   node bench/ab.ts '/resources/employees/5' 5 3 svc '' '--max-semi-space-size=16'
//   AB_B_CHECKOUT=/tmp/base node bench/ab.ts '/resources/employees/5' 5 3 svc '' ''

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runLoad } from './load.ts';
import { commandLineScenario, SERVERS } from './scenarios.ts';
import { median, quantile } from './report.ts';
import { Seeds } from './seed.ts';
import { cpuOf, ROOT, startServer } from './servers.ts';

const [target = '/resources/employees/1', rounds = '5', seconds = '3', serverName = 'svc', flagsA = '', flagsB = ''] = process.argv.slice(2);
const spec = SERVERS[serverName];
if (!spec || spec.kind !== 'svc') throw new Error(`no svc server ${serverName}`);
const checkoutB = process.env.AB_B_CHECKOUT;
const specB = process.env.AB_B_SERVER ? SERVERS[process.env.AB_B_SERVER] : spec;
if (!specB || specB.kind !== 'svc') throw new Error(`no svc server ${process.env.AB_B_SERVER}`);
const dir = mkdtempSync(join(tmpdir(), 'svc-ab-'));
const log = (line: string) => console.error(`ab: ${line}`);
const seeds = new Seeds(dir, dir);
const split = (flags: string) => flags.split(' ').filter(Boolean);
const connections = Number(process.env.AB_CONNECTIONS ?? 32);
const envB = JSON.parse(process.env.AB_B_ENV ?? '{}') as Record<string, string>;
const withEnvB = <T extends { readonly env?: Readonly<Record<string, string>> }>(s: T): T => ({ ...s, env: { ...s.env, ...envB } });
const servers = [
  await startServer(`${serverName}-a`, spec, { seeds, dataDir: dir, nodeArgs: split(flagsA), log }),
  await startServer(`${serverName}-b`, withEnvB(checkoutB ? { ...specB, entry: relative(ROOT, join(checkoutB, specB.entry ?? 'src/cli.ts')) } : specB), { seeds, dataDir: dir, nodeArgs: split(flagsB), log }),
];
const scenario = commandLineScenario(target, serverName, 'ab');
const also = process.env.AB_ALSO ? commandLineScenario(process.env.AB_ALSO, serverName, 'ab') : undefined;
const alsoConnections = Number(process.env.AB_ALSO_CONNECTIONS ?? 1);
const ratios: number[] = [];
const cpuRatios: number[] = [];
/** User-mode CPU only: the kernel's share (socket writes, waking the load generator) varies most on a shared machine. */
const userRatios: number[] = [];
try {
  for (const s of servers) {
    await runLoad(s.url, scenario, { seconds: 1, connections });
  }
  for (let r = 0; r < Number(rounds); r++) {
    const rates: number[] = [];
    const cpus: number[] = [];
    const users: number[] = [];
    // Alternate which goes first, so that a trend in the machine's speed favours neither.
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    const got: string[] = [];
    for (const i of order) {
      const cpu = cpuOf(servers[i]!.pid);
      const user = cpuOf(servers[i]!.pid, 'user');
      const side = also && runLoad(servers[i]!.url, also, { seconds: Number(seconds), connections: alsoConnections });
      const m = await runLoad(servers[i]!.url, scenario, { seconds: Number(seconds), connections });
      const sideM = side ? await side : undefined;
      rates[i] = m.rps;
      cpus[i] = ((cpuOf(servers[i]!.pid) - cpu) * 1e6) / (m.requests + (sideM?.requests ?? 0));
      users[i] = ((cpuOf(servers[i]!.pid, 'user') - user) * 1e6) / (m.requests + (sideM?.requests ?? 0));
      got[i] = `${'AB'[i]} ${Math.round(m.rps)} req/s p50 ${m.p50.toFixed(2)} ms${sideM ? ` (+${Math.round(sideM.rps)} req/s beside)` : ''} ${cpus[i]!.toFixed(1)} µs CPU/req`;
    }
    ratios.push(rates[1]! / rates[0]!);
    cpuRatios.push(cpus[1]! / cpus[0]!);
    userRatios.push(users[1]! / users[0]!);
    console.log(`round ${r + 1}: ${got.join(', ')}, B/A ${(rates[1]! / rates[0]!).toFixed(3)}, CPU/req B/A ${(cpus[1]! / cpus[0]!).toFixed(3)}`);
  }
  // With the middle half of the rounds' ratios: two settings that are the same (an A/A run) give a
  // spread as wide as this machine's noise, and a difference inside it is not shown by the run.
  const summary = (xs: number[]) => `${median(xs).toFixed(3)} (middle half ${quantile(xs, 0.25).toFixed(3)}–${quantile(xs, 0.75).toFixed(3)})`;
  console.log(`median B/A ${summary(ratios)}, CPU per request B/A ${summary(cpuRatios)}, user-mode CPU per request B/A ${summary(userRatios)} (A: '${flagsA}', B: '${flagsB}')`);
} finally {
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}

