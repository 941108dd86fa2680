// `node bench/wrk.ts [rounds] [seconds]`: the rows of issue 13's table measured by an outside load
// generator, wrk (2 threads, 32 connections), beside `npm run bench`'s own (bench/connection.ts).
// The two disagree: wrk takes less CPU per request than the bench's generator, so on these 2 cores
// the ceiling (raw node:http) runs faster under wrk and a server's ratio to it reads lower. A user's
// load generator sees wrk's figures. Each row runs right after or before its baseline (the order
// alternates by round), each with the requests of its `npm run bench` scenario (bench/scenarios.ts:
// the same ids, pages and create bodies, cycled). Writes bench/results-wrk.md. Prints one
// "skipped" line when wrk is not installed (Debian: `apt-get install wrk`).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './report.ts';
import { SCENARIOS, SERVERS, type Gen, type Scenario } from './scenarios.ts';
import { Seeds } from './seed.ts';
import { ROOT, startServer, type Started } from './servers.ts';

/** Rows of issue 13's table and the operations group, each with its baseline: [row, baseline, target]. */
const ROWS: readonly (readonly [string, string, string])[] = [
  ['retrieve by id', 'ceiling', '≥ 0.5'],
  ['first page of 20 (of 10,000)', 'ceiling', '≥ 0.35'],
  ['first page of 20, order_by=name', 'ceiling', '≥ 0.35'],
  ['filtered page (name__startswith=a&born__day=5&order_by=name)', 'ceiling', '≥ 0.2'],
  ['create (durable)', 'ceiling', '≥ 0.35'],
  ['retrieve, `onRetrieve() { svc.delegate() }` (isolate)', 'retrieve, direct default handler', '≥ 0.65'],
  ['retrieve, onRetrieve delegates then sets a header (isolate)', 'retrieve, handler `svc.delegate();` (static fast path)', '≥ 0.5'],
  // Not in the issue's table: the operations rows, whose generator's own CPU matters most.
  ['retrieve, --workers 2', 'retrieve, 1 process', '≥ 1.3'],
  ['retrieve, request log on (json)', 'retrieve, 1 process', '≥ 0.85'],
];

/** Distinct requests a script cycles through (the bench's ids run over 10,000 members). */
const REQUESTS = 10_000;

const [rounds = '3', seconds = '3'] = process.argv.slice(2);

function wrkInstalled(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (e) {
    // wrk --version prints its version and exits 1.
    return (e as { status?: number }).status === 1;
  }
}

if (!wrkInstalled()) {
  console.log('skipped: bench/wrk.ts (wrk is not installed; Debian: apt-get install wrk)');
  process.exit(0);
}

const scenario = (name: string): Scenario => {
  const s = SCENARIOS.find((x) => x.name === name && x.connections === undefined);
  if (!s) throw new Error(`no scenario ${name}`);
  return s;
};
const at = <T>(g: Gen<T> | undefined, i: number): T | undefined => (typeof g === 'function' ? (g as (i: number) => T)(i) : g);

/** A Lua long string holding `text` (none of our requests holds its closing bracket). */
function lua(text: string): string {
  if (text.includes(']==]')) throw new Error('a request holds ]==]');
  return `[==[${text}]==]`;
}

/** A wrk script sending the scenario's requests in turn (one, when it has no generators). */
function script(s: Scenario, dir: string): string | undefined {
  if (typeof s.path === 'string' && s.method === 'GET' && s.body === undefined && s.headers === undefined) return undefined;
  const lines = ['local reqs = {}', 'local n = 0', 'init = function()'];
  const count = typeof s.path === 'function' || typeof s.body === 'function' ? REQUESTS : 1;
  for (let i = 0; i < count; i++) {
    const body = at(s.body, i);
    const headers = Object.entries(s.headers ?? {})
      .map(([k, v]) => `[ ${lua(k)} ] = ${lua(v)}`)
      .join(', ');
    lines.push(`  reqs[${i + 1}] = wrk.format(${lua(s.method)}, ${lua(at(s.path, i)!)}, {${headers}}${body === undefined ? '' : `, ${lua(body)}`})`);
  }
  lines.push('end', 'request = function()', `  n = n % ${count} + 1`, '  return reqs[n]', 'end', '');
  const file = join(dir, `${s.server}-${s.name.replace(/[^a-z0-9]+/gi, '-')}.lua`);
  writeFileSync(file, lines.join('\n'));
  return file;
}

/** req/s wrk measured; throws unless every response was 2xx. */
function runWrk(server: Started, s: Scenario, scriptFile: string | undefined): number {
  const path = typeof s.path === 'string' ? s.path : '/';
  const args = ['-t2', '-c32', `-d${seconds}s`, ...(scriptFile ? ['-s', scriptFile] : []), `${server.url}${scriptFile ? '' : path}`];
  const out = execFileSync('wrk', args, { encoding: 'utf8' });
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (bad || !(rate > 0)) throw new Error(`${s.name}: wrk ${args.join(' ')}\n${out}`);
  return rate;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-wrk-'));
const seeds = new Seeds(dir, dir);
const log = (line: string) => console.error(`wrk: ${line}`);
const servers = new Map<string, Started>();
try {
  const names = [...new Set(ROWS.flatMap(([row, base]) => [row, base]))];
  const scripts = new Map<string, string | undefined>();
  for (const name of names) {
    const s = scenario(name);
    if (!servers.has(s.server)) servers.set(s.server, await startServer(s.server, SERVERS[s.server]!, { seeds, dataDir: dir, nodeArgs: [], log }));
    scripts.set(name, script(s, dir));
  }
  const rate = (name: string) => runWrk(servers.get(scenario(name).server)!, scenario(name), scripts.get(name));
  for (const name of names) rate(name); // warm-up
  const rates = new Map<string, number[]>();
  const ratios = new Map<string, number[]>();
  for (let r = 0; r < Number(rounds); r++) {
    for (const [row, base] of ROWS) {
      const [first, second] = r % 2 === 0 ? [base, row] : [row, base];
      const a = rate(first);
      const b = rate(second);
      const [rowRate, baseRate] = first === row ? [a, b] : [b, a];
      rates.set(row, [...(rates.get(row) ?? []), rowRate]);
      rates.set(`${row} (baseline)`, [...(rates.get(`${row} (baseline)`) ?? []), baseRate]);
      ratios.set(row, [...(ratios.get(row) ?? []), rowRate / baseRate]);
      log(`round ${r + 1}: ${row}: ${Math.round(rowRate)} req/s, ${base}: ${Math.round(baseRate)} req/s, ${(rowRate / baseRate).toFixed(2)}`);
    }
  }
  const lines = [
    '# svc benchmark, outside load generator (wrk)',
    '',
    `Command: \`node bench/wrk.ts ${rounds} ${seconds}\` — ${new Date().toISOString()}, wrk -t2 -c32, ${seconds} s per run, rounds: ${rounds}, each row beside its baseline (order alternating).`,
    'Requests as in `npm run bench` (bench/scenarios.ts), cycled. Ratios are medians over the rounds of row ÷ baseline measured seconds apart.',
    '',
    '| scenario | req/s | baseline | baseline req/s | ratio | range | target |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: |',
    ...ROWS.map(([row, base, target]) => {
      const rs = ratios.get(row)!;
      return `| ${row} | ${Math.round(median(rates.get(row)!))} | ${base} | ${Math.round(median(rates.get(`${row} (baseline)`)!))} | ${median(rs).toFixed(2)} | ${Math.min(...rs).toFixed(2)}–${Math.max(...rs).toFixed(2)} | ${target} |`;
    }),
    '',
  ];
  writeFileSync(join(ROOT, 'bench', 'results-wrk.md'), lines.join('\n'));
  console.log(lines.join('\n'));
} finally {
  for (const s of servers.values()) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
