// `node bench/profile.ts <path> [seconds] [server]`: one svc server of bench/scenarios.ts under
// --cpu-prof, loaded with one request path (GET; POST when the path starts with "POST "), then the
// functions with the most self time. For finding where a row's time goes, not for figures.
// PROFILE_INCLUSIVE=1 adds inclusive time, of svc's own functions or, with PROFILE_ALL=1, of every
// function (Node's included: where a request's time goes between the parser, svc and the socket);
// PROFILE_TOP=<n> lists that many (40).

import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from './load.ts';
import { commandLineScenario, SERVERS } from './scenarios.ts';
import { Seeds } from './seed.ts';
import { startServer } from './servers.ts';

const [target = '/resources/employees?count=20', seconds = '5', serverName = 'svc'] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'svc-profile-'));
const profDir = join(dir, 'prof');
const spec = SERVERS[serverName];
if (!spec) throw new Error(`no server ${serverName}`);
const log = (line: string) => console.error(`profile: ${line}`);
const server = await startServer(serverName, spec, { seeds: new Seeds(dir, dir), dataDir: dir, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`], log });
const scenario = commandLineScenario(target, serverName, 'profile');
const m = await runLoad(server.url, scenario, { seconds: Number(seconds), connections: 32 });
await server.stop();
console.log(`${target}: ${JSON.stringify(m).slice(0, 300)}`);

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number }
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))!;
const prof = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as { nodes: Node[] };
const self = new Map<string, number>();
let total = 0;
for (const n of prof.nodes) {
  const where = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
  self.set(where, (self.get(where) ?? 0) + n.hitCount);
  total += n.hitCount;
}
for (const [where, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.PROFILE_TOP ?? 40))) console.log(`${((100 * hits) / total).toFixed(1).padStart(5)}%  ${where}`);

// Inclusive time of svc's own functions (src/), each counted once per sample however deep it recurs.
if (process.env.PROFILE_INCLUSIVE) {
  const byId = new Map<number, Node & { children?: number[] }>();
  for (const n of prof.nodes as (Node & { children?: number[] })[]) byId.set(n.id, n);
  const parent = new Map<number, number>();
  for (const n of byId.values()) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const n of byId.values()) {
    if (n.hitCount === 0) continue;
    const seen = new Set<string>();
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      if (!process.env.PROFILE_ALL && !/\/(src)\//.test(f.url)) continue;
      const where = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(src|node_modules)\//, "$1/")}:${f.lineNumber + 1}`;
      if (seen.has(where)) continue;
      seen.add(where);
      inclusive.set(where, (inclusive.get(where) ?? 0) + n.hitCount);
    }
  }
  console.log(process.env.PROFILE_ALL ? '\ninclusive (all functions):' : '\ninclusive (svc functions):');
  for (const [where, hits] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.PROFILE_TOP ?? 40))) console.log(`${((100 * hits) / total).toFixed(1).padStart(5)}%  ${where}`);
}
