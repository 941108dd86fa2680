// `npm run bench`: starts every server of bench/scenarios.ts side by side, runs the scenarios in
// alternating rounds, and prints the table and writes it to bench/results.md.
//
// Environment (all optional):
//   BENCH_SECONDS      seconds of load per scenario per round (default 3)
//   BENCH_ROUNDS       rounds; every row runs once per round beside a run of its baseline (default 3)
//   BENCH_WARMUP       seconds of unmeasured load per scenario before the first round, and before
//                      any run whose server sat idle for over 10 s since its last (default 1)
//   BENCH_CONNECTIONS  concurrent connections of the load generator (default 32)
//   BENCH_GROUPS       comma-separated group keys to run (default: every group whose `requires`
//                      package is installed: `peer` only with json-server), e.g.
//                      BENCH_GROUPS=peer for svc vs json-server alone, or BENCH_GROUPS=ceiling,atom
//   BENCH_MEMORY       0 to skip the streaming memory checks and the sandbox script checks
//   BENCH_CPU_PROF     a directory: svc servers run with --cpu-prof and write their profiles there
//   BENCH_OUT          the report file (default bench/results.md; '-' for none)

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { newPool, runLoad, type Measured } from './load.ts';
import { markdown, memoryTable, resultsTable, scriptTable, spreadLines, summarize, type MemoryResult, type Outcome, type ScriptResult } from './report.ts';
import { baselineOf, GROUPS, MEMORY_CHECKS, SCENARIOS, SCRIPT_CHECKS, SERVERS, type MemoryCheck, type Scenario } from './scenarios.ts';
import { Seeds } from './seed.ts';
import { cpuOf, machineBusy, memoryOf, startServer, type Started } from './servers.ts';
import { NODE_FLAGS } from '../src/node-flags.ts';

const ROOT = new URL('..', import.meta.url).pathname;
/** A server idle for longer than this, in milliseconds, gets a warm-up run before its next measured one. */
const REWARM_AFTER_MS = 10_000;

function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!(n > 0)) throw new Error(`${name} must be a positive number, not "${raw}"`);
  return n;
}

/** Whether npm package `name` is installed where this repository's code would import it from. */
function installed(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

const config = {
  seconds: numberEnv('BENCH_SECONDS', 3),
  rounds: Math.round(numberEnv('BENCH_ROUNDS', 3)),
  warmup: numberEnv('BENCH_WARMUP', 1),
  connections: Math.round(numberEnv('BENCH_CONNECTIONS', 32)),
  groups: process.env.BENCH_GROUPS
    ? process.env.BENCH_GROUPS.split(',').map((g) => g.trim())
    : Object.keys(GROUPS).filter((g) => {
        const needs = GROUPS[g]!.requires;
        if (needs === undefined || installed(needs)) return true;
        console.error(`bench: group ${g} left out: it needs ${needs}, which is not installed (npm install)`);
        return false;
      }),
  memory: process.env.BENCH_MEMORY !== '0',
  cpuProf: process.env.BENCH_CPU_PROF,
  out: process.env.BENCH_OUT === '-' ? undefined : resolve(ROOT, process.env.BENCH_OUT ?? 'bench/results.md'),
};

const log = (line: string) => console.error(`bench: ${line}`);

// `npm run bench` runs plain `node bench/run.ts`; seeding loads node:sqlite, whose
// ExperimentalWarning says nothing about the bench (the servers run with --disable-warning).
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name !== 'ExperimentalWarning') console.error(`${w.name}: ${w.message}`);
});

/** A scratch directory on tmpfs when there is one (cheap fsyncs for seeding), else the temp dir. */
function scratchDir(): string {
  try {
    return mkdtempSync('/dev/shm/svc-bench-seed-');
  } catch {
    return mkdtempSync(join(tmpdir(), 'svc-bench-seed-'));
  }
}

/** `xs` rotated to start at index `n`: each round starts with a different row. */
function rotate<T>(xs: readonly T[], n: number): T[] {
  const k = xs.length ? n % xs.length : 0;
  return [...xs.slice(k), ...xs.slice(0, k)];
}

/**
 * Streams `check.path` once, reading the whole body, while sampling the server's resident memory.
 * A few small pages first, so the growth is that of the listing, not of loading code.
 */
async function memoryCheck(check: MemoryCheck, server: Started, pool: Pool): Promise<MemoryResult> {
  const base = { name: check.name, members: 0, bytes: 0, seconds: NaN, beforeMB: NaN, peakMB: NaN, growthMB: NaN, maxGrowthMB: check.maxGrowthMB };
  const sep = check.path.includes('?') ? '&' : '?';
  for (let i = 0; i < 20; i++) await (await pool.request({ method: 'GET', path: `${check.path}${sep}count=20` })).body.dump();
  await sleep(500);
  const before = memoryOf(server.pid);
  let peak = before.rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memoryOf(server.pid).rss);
  }, 5);
  const t0 = performance.now();
  const needle = Buffer.from(check.marker ?? '{"id":');
  let bytes = 0;
  let members = 0;
  let tail = Buffer.alloc(0);
  try {
    const res = await pool.request({ method: 'GET', path: check.path });
    if (res.statusCode !== 200) {
      return { ...base, failed: `${res.statusCode} ${(await res.body.text()).slice(0, 200)}` };
    }
    for await (const chunk of res.body) {
      const c = chunk as Buffer;
      bytes += c.length;
      // Count members across chunk boundaries: keep the last few bytes of the previous chunk.
      const buf = Buffer.concat([tail, c]);
      for (let at = buf.indexOf(needle); at !== -1; at = buf.indexOf(needle, at + needle.length)) members++;
      tail = buf.subarray(Math.max(0, buf.length - (needle.length - 1)));
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - t0) / 1000;
  const after = memoryOf(server.pid);
  // VmHWM catches a peak between samples, when it rose above the peak before the request.
  if (after.hwm > before.hwm) peak = Math.max(peak, after.hwm);
  peak = Math.max(peak, after.rss);
  const result = { ...base, members, bytes, seconds, beforeMB: before.rss / 1e6, peakMB: peak / 1e6, growthMB: (peak - before.rss) / 1e6 };
  return members === check.members ? result : { ...result, failed: `${members} members, expected ${check.members}` };
}

async function main(): Promise<void> {
  const began = performance.now();
  const scenarios = SCENARIOS.filter((s) => config.groups.includes(s.group));
  for (const g of config.groups) {
    const group = GROUPS[g];
    if (!group) throw new Error(`BENCH_GROUPS: unknown group "${g}" (groups: ${Object.keys(GROUPS).join(', ')})`);
    if (group.requires !== undefined && !installed(group.requires)) throw new Error(`group ${g} needs ${group.requires}, which is not installed (npm install)`);
    if (group.baseline !== undefined && !scenarios.some((s) => s.group === g && s.name === group.baseline)) throw new Error(`group ${g}: no baseline scenario "${group.baseline}"`);
    for (const s of scenarios.filter((x) => x.group === g)) {
      const base = baselineOf(s, group);
      if (base !== undefined && !scenarios.some((x) => x.group === g && x.name === base)) throw new Error(`${s.name}: no baseline scenario "${base}" in group ${g}`);
    }
  }
  const checks = config.memory ? MEMORY_CHECKS : [];
  const serverNames = [...new Set([...scenarios.map((s) => s.server), ...checks.map((c) => c.server)])];
  for (const name of serverNames) if (!SERVERS[name]) throw new Error(`unknown server "${name}"`);

  const scratch = scratchDir();
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const nodeArgs = config.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${resolve(config.cpuProf)}`] : [];
  if (config.cpuProf) mkdirSync(config.cpuProf, { recursive: true });
  const seeds = new Seeds(scratch, dataDir);
  const servers = new Map<string, Started>();
  const pools = new Map<string, Pool>();
  try {
    for (const name of serverNames) {
      const server = await startServer(name, SERVERS[name]!, { seeds, dataDir, nodeArgs, log });
      servers.set(name, server);
      pools.set(name, newPool(server.url, config.connections));
    }
    // Seeds are copied; the originals are no longer needed.
    rmSync(scratch, { recursive: true, force: true });

    const memory: MemoryResult[] = [];
    for (const check of checks) {
      log(`memory: ${check.name}`);
      memory.push(await memoryCheck(check, servers.get(check.server)!, pools.get(check.server)!));
    }

    const outcomes = new Map<Scenario, Outcome>(scenarios.map((s) => [s, { scenario: s, runs: [], pairs: [] }]));
    const load = { connections: config.connections, seconds: config.seconds };
    /** When each server last finished a run (performance.now()). */
    const lastLoaded = new Map<string, number>();
    /**
     * One run of `s` (a warm-up is not recorded), or undefined when it failed, now or before: a
     * failed scenario is not run again.
     */
    const run = async (s: Scenario, warmup = false): Promise<Measured | undefined> => {
      const o = outcomes.get(s)!;
      if (o.failed) return undefined;
      // A server that sat idle (its group waited for the others) warms up again first: V8 drops
      // code that idle processes do not run, and a row on an idle server beside a baseline on a busy
      // one measured the idling (--workers 2 after 90 s idle: 0.91× its next run).
      if (!warmup && performance.now() - (lastLoaded.get(s.server) ?? -Infinity) > REWARM_AFTER_MS) await run(s, true);
      const { pid } = servers.get(s.server)!;
      const cpu0 = cpuOf(pid);
      const busy0 = machineBusy();
      const self0 = process.cpuUsage();
      const t0 = performance.now();
      const opts = { ...load, ...(s.connections ? { connections: s.connections } : {}) };
      const url = servers.get(s.server)!.url;
      const seconds0 = warmup ? config.warmup : opts.seconds;
      const beside = s.beside && runLoad(url, { ...s.beside, name: `${s.name} (beside)`, server: s.server, group: s.group }, { ...opts, seconds: seconds0, connections: s.beside.connections ?? 1 });
      const measured = await runLoad(url, s, { ...opts, seconds: seconds0 });
      const besideM = beside ? await beside : undefined;
      const seconds = (performance.now() - t0) / 1000;
      lastLoaded.set(s.server, performance.now());
      const server = cpuOf(pid) - cpu0;
      const self = process.cpuUsage(self0);
      const others = machineBusy() - busy0 - server - (self.user + self.system) / 1e6;
      const m: Measured = { ...measured, serverCpu: server / seconds, otherCpu: Math.max(0, others) / seconds };
      if (m.errors > 0 || (besideM?.errors ?? 0) > 0) {
        o.failed = m.errors > 0 ? `${m.errors} errors; first: ${m.error}` : `${besideM!.errors} errors beside; first: ${besideM!.error}`;
        log(`${s.name}: FAILED: ${o.failed}\n${servers.get(s.server)!.stderr()}`);
        return undefined;
      }
      if (!warmup) {
        o.runs.push(m);
        log(
          `  ${s.name}: ${m.rps.toFixed(0)} req/s${besideM ? ` (${besideM.rps.toFixed(0)} req/s beside)` : ''}, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms ` +
            `(CPU: server ${m.serverCpu!.toFixed(2)}, bench ${m.clientCpu.toFixed(2)}, others ${m.otherCpu!.toFixed(2)} cores)`,
        );
      }
      return m;
    };

    log(`warm-up: ${config.warmup} s per scenario`);
    for (const s of scenarios) await run(s, true);

    for (let round = 0; round < config.rounds; round++) {
      log(`round ${round + 1} of ${config.rounds}`);
      for (const group of config.groups) {
        const inGroup = scenarios.filter((s) => s.group === group);
        const baseOf = (s: Scenario) => {
          const name = baselineOf(s, GROUPS[group]!);
          return name === undefined ? undefined : inGroup.find((b) => b.name === name)!;
        };
        const rows = rotate(inGroup.filter((s) => baseOf(s) !== undefined), round);
        // A baseline that no row is compared with is measured on its own.
        for (const b of inGroup) if (baseOf(b) === undefined && !rows.some((s) => baseOf(s) === b)) await run(b);
        // Each row beside a fresh run of its baseline (ceiling, svc, svc, ceiling, …): on a noisy
        // machine, two runs seconds apart see the same neighbours.
        for (const [k, s] of rows.entries()) {
          const base = baseOf(s)!;
          const baseFirst = (round + k) % 2 === 0;
          const first = await run(baseFirst ? base : s);
          const second = await run(baseFirst ? s : base);
          const [b, m] = baseFirst ? [first, second] : [second, first];
          if (b && m) outcomes.get(s)!.pairs.push({ ratio: m.rps / b.rps, p50Ratio: m.p50 / b.p50, p50AddedMs: m.p50 - b.p50 });
        }
      }
    }

    // Checks that are scripts of their own, run while the servers above sit idle.
    const scriptResults: ScriptResult[] = [];
    if (config.memory) {
      for (const check of SCRIPT_CHECKS) {
        log(`script: ${check.file}`);
        try {
          const { stdout } = await promisify(execFile)(process.execPath, [...NODE_FLAGS, ...(check.nodeArgs ?? []), check.file, ...(check.args ?? [])], { cwd: resolve(import.meta.dirname, '..') });
          for (const m of stdout.matchAll(/^RESULT (.*)$/gm)) scriptResults.push(JSON.parse(m[1]!));
          log(stdout.replace(/^RESULT .*$/gm, '').trim());
        } catch (e) {
          scriptResults.push({ check: check.file, value: NaN, unit: '', max: NaN, failed: String((e as Error).message).split('\n')[0]! });
        }
      }
    }

    const rows = summarize(
      Object.fromEntries(config.groups.map((g) => [g, GROUPS[g]!])),
      [...outcomes.values()],
    );
    const elapsedSeconds = (performance.now() - began) / 1000;
    console.log(`\n${resultsTable(rows)}\n`);
    const spread = spreadLines(rows);
    if (spread.length) console.log(`${spread.join('\n')}\n`);
    if (memory.length) console.log(`${memoryTable(memory)}\n`);
    if (scriptResults.length) console.log(`${scriptTable(scriptResults)}\n`);
    const failed = rows.filter((r) => r.failed);
    for (const r of failed) console.log(`FAILED ${r.scenario.name}: ${r.failed}`);
    console.log(`bench: ${elapsedSeconds.toFixed(0)} s`);
    if (config.out) {
      const info = { date: new Date(), connections: config.connections, seconds: config.seconds, rounds: config.rounds, warmup: config.warmup, elapsedSeconds };
      writeFileSync(config.out, markdown(info, GROUPS, rows, memory, scriptResults));
      log(`wrote ${config.out}`);
    }
    if (failed.length || memory.some((m) => m.failed) || scriptResults.some((r) => r.failed)) process.exitCode = 1;
  } finally {
    await Promise.all([...pools.values()].map((p) => p.close()));
    await Promise.all([...servers.values()].map((s) => s.stop()));
    rmSync(scratch, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
