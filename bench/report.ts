// Summaries of the rounds (medians, ratios to each group's baseline) and the markdown report.

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Measured } from './load.ts';
import { baselineOf, type Group, type Scenario, type Target } from './scenarios.ts';

/** One scenario over the rounds. */
export interface Outcome {
  readonly scenario: Scenario;
  /** Every measurement without errors, in order. */
  readonly runs: Measured[];
  /** Against the row's baseline measured right before or after (none for a baseline itself). */
  readonly pairs: { ratio: number; p50Ratio: number; p50AddedMs: number }[];
  /** Why the scenario was not measured (errors), if it failed. */
  failed?: string;
}

export interface Row {
  readonly group: string;
  readonly scenario: Scenario;
  readonly baseline: boolean;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly bytes: number;
  /** X-Total-Count of list responses (members matching), when there was one. */
  readonly total?: number;
  /** CPU of the server and of the bench process (load generator), in cores. */
  readonly serverCpu: number;
  readonly clientCpu: number;
  /** CPU of every other process meanwhile, in cores: how noisy the neighbours were. */
  readonly otherCpu: number;
  /** Medians over the rounds of this row ÷ the baseline measured beside it. */
  readonly ratio: number;
  readonly p50Ratio: number;
  /** p50 of this row minus p50 of its baseline, in ms (median over the pairs). */
  readonly p50AddedMs: number;
  /** Every run and every pair's ratio, for the details. */
  readonly runRps: number[];
  readonly pairRatios: number[];
  readonly met: boolean | undefined;
  readonly failed?: string;
}

export interface MemoryResult {
  readonly name: string;
  readonly members: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly beforeMB: number;
  readonly peakMB: number;
  readonly growthMB: number;
  readonly maxGrowthMB: number;
  readonly failed?: string;
}

export interface RunInfo {
  readonly date: Date;
  readonly connections: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly warmup: number;
  readonly elapsedSeconds: number;
}

export function median(xs: readonly number[]): number {
  return quantile(xs, 0.5);
}

/** The `q` quantile of the finite values of `xs` (linear between the two nearest ranks); NaN when there are none. */
export function quantile(xs: readonly number[], q: number): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
}

function meets(target: Target | undefined, ratio: number, p50Ratio: number, p50AddedMs: number): boolean | undefined {
  if (!target) return undefined;
  if (target.maxP50AddedMs !== undefined && !(p50AddedMs <= target.maxP50AddedMs)) return false;
  if (target.minRatio !== undefined && !(ratio >= target.minRatio)) return false;
  if (target.maxP50Ratio !== undefined && !(p50Ratio <= target.maxP50Ratio)) return false;
  return true;
}

export function summarize(groups: Readonly<Record<string, Group>>, outcomes: readonly Outcome[]): Row[] {
  const rows: Row[] = [];
  for (const [key, group] of Object.entries(groups)) {
    const members = outcomes.filter((o) => o.scenario.group === key);
    // Each baseline, then the rows compared with it, each followed by the rows compared with it in turn.
    const after = (name: string, seen: ReadonlySet<string>): Outcome[] =>
      members
        .filter((o) => baselineOf(o.scenario, group) === name && !seen.has(o.scenario.name))
        .flatMap((o) => [o, ...after(o.scenario.name, new Set([...seen, o.scenario.name]))]);
    const ordered = members
      .filter((b) => baselineOf(b.scenario, group) === undefined)
      .flatMap((b) => [b, ...after(b.scenario.name, new Set([b.scenario.name]))]);
    for (const o of ordered) {
      const baseName = baselineOf(o.scenario, group);
      const base = baseName === undefined ? undefined : members.find((b) => b.scenario.name === baseName);
      const failed = o.failed ?? (base?.failed ? `baseline failed: ${base.failed}` : undefined);
      const ratio = median(o.pairs.map((p) => p.ratio));
      const p50Ratio = median(o.pairs.map((p) => p.p50Ratio));
      const p50AddedMs = median(o.pairs.map((p) => p.p50AddedMs));
      rows.push({
        group: key,
        scenario: o.scenario,
        baseline: baseName === undefined,
        rps: median(o.runs.map((m) => m.rps)),
        p50: median(o.runs.map((m) => m.p50)),
        p99: median(o.runs.map((m) => m.p99)),
        bytes: median(o.runs.map((m) => m.bytes)),
        ...(o.runs[0]?.total !== undefined ? { total: o.runs[0].total } : {}),
        serverCpu: median(o.runs.map((m) => m.serverCpu ?? NaN)),
        clientCpu: median(o.runs.map((m) => m.clientCpu)),
        otherCpu: median(o.runs.map((m) => m.otherCpu ?? NaN)),
        ratio,
        p50Ratio,
        p50AddedMs,
        runRps: o.runs.map((m) => m.rps),
        pairRatios: o.pairs.map((p) => p.ratio),
        met: failed ? (o.scenario.target ? false : undefined) : meets(o.scenario.target, ratio, p50Ratio, p50AddedMs),
        ...(failed ? { failed } : {}),
      });
    }
  }
  return rows;
}

const fixed = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

function targetText(t: Target | undefined): string {
  if (!t) return '';
  const parts: string[] = [];
  if (t.minRatio !== undefined) parts.push(`≥ ${t.minRatio}`);
  if (t.maxP50Ratio !== undefined) parts.push(`p50 ≤ ${t.maxP50Ratio}×`);
  if (t.maxP50AddedMs !== undefined) parts.push(`p50 +≤ ${t.maxP50AddedMs} ms`);
  return parts.join(', ');
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((h, i) => (i === 0 || i === 1 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    return `${m?.[1] ?? 'unknown'} × ${availableParallelism()}`;
  } catch {
    return `unknown × ${availableParallelism()}`;
  }
}

export function resultsTable(rows: readonly Row[]): string {
  return table(
    ['group', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'ratio to baseline', 'p50 ratio (added)', 'target', 'met?'],
    rows.map((r) => [
      r.group,
      r.scenario.name,
      r.failed ? 'FAILED' : fixed(r.rps, 0),
      fixed(r.p50, 2),
      fixed(r.p99, 2),
      r.baseline ? 'baseline' : fixed(r.ratio, 2),
      r.baseline ? '' : `${fixed(r.p50Ratio, 2)} (${r.p50AddedMs >= 0 ? '+' : ''}${fixed(r.p50AddedMs, 2)} ms)`,
      targetText(r.scenario.target),
      r.met === undefined ? '' : r.met ? 'yes' : '**no**',
    ]),
  );
}

/** A baseline whose slowest and fastest runs differ by this factor or more is named under the table. */
const SPREAD_NOTED = 1.25;

/**
 * Lines naming each baseline whose runs spread over SPREAD_NOTED or more. A ratio is a row's run ÷
 * the baseline's run beside it; the median of three pairs keeps one odd run out, not a shift that
 * lasts for rounds. On the 2-core machines the ceiling has had two states for whole stretches of a
 * run (76,000–90,000 req/s with a p99 of about 1 ms, and 41,000–65,000 with one of 5–9 ms, the
 * load generator and the server then often sharing a core: `ps -o psr`), while svc's rows held
 * still: every ratio to the ceiling then reads about 1.4 times higher.
 */
export function spreadLines(rows: readonly Row[]): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    if (!r.baseline || r.runRps.length < 2) continue;
    const low = Math.min(...r.runRps);
    const high = Math.max(...r.runRps);
    if (!(low > 0) || high / low < SPREAD_NOTED) continue;
    lines.push(
      `- \`${r.scenario.name}\` (group \`${r.group}\`) ran from ${fixed(low, 0)} to ${fixed(high, 0)} req/s (${fixed(high / low, 2)}×): ` +
        'the ratios to it in this run are as uncertain; a row measured beside its slow runs reads high.',
    );
  }
  return lines.length ? ['Baselines whose own runs spread widely:', '', ...lines, ''] : [];
}

export function memoryTable(results: readonly MemoryResult[]): string {
  return table(
    ['check', 'members', 'MB sent', 'seconds', 'RSS before MB', 'RSS peak MB', 'growth MB', 'target', 'met?'],
    results.map((m) => [
      m.name,
      String(m.members),
      fixed(m.bytes / 1e6, 1),
      fixed(m.seconds, 2),
      fixed(m.beforeMB, 1),
      fixed(m.peakMB, 1),
      fixed(m.growthMB, 1),
      `< ${m.maxGrowthMB} MB`,
      m.failed ? `**no** (${m.failed})` : m.growthMB < m.maxGrowthMB ? 'yes' : '**no**',
    ]),
  );
}

/** A result printed by a script check (`RESULT {json}`). */
export interface ScriptResult {
  readonly check: string;
  readonly value: number;
  readonly unit: string;
  readonly max: number;
  readonly failed?: string;
}

export function scriptTable(results: readonly ScriptResult[]): string {
  return table(
    ['check', 'value', 'target', 'met?'],
    results.map((r) => [r.check, r.failed ? `FAILED: ${r.failed}` : `${fixed(r.value, 1)} ${r.unit}`, `≤ ${r.max} ${r.unit}`, !r.failed && r.value <= r.max ? 'yes' : '**no**']),
  );
}

export function markdown(info: RunInfo, groups: Readonly<Record<string, Group>>, rows: readonly Row[], memory: readonly MemoryResult[], scripts: readonly ScriptResult[] = []): string {
  const usedGroups = Object.entries(groups).filter(([key]) => rows.some((r) => r.group === key));
  const failures = rows.filter((r) => r.failed);
  return [
    '# svc benchmark',
    '',
    `Command: \`npm run bench\` — ${info.date.toISOString()}, node ${process.version}, ${cpuModel()}.`,
    `${info.connections} connections (closed loop, no pipelining), ${info.seconds} s per scenario per round, ` +
      `${info.rounds} rounds after a ${info.warmup} s warm-up (again before a run whose server sat idle for over 10 s); whole run ${info.elapsedSeconds.toFixed(0)} s.`,
    '',
    'Every server runs in its own process on 127.0.0.1, the load generator in the bench process, all on the same machine.',
    'The load generator (bench/connection.ts) writes each request as one buffer and reads only the status, the body\'s length',
    'and X-Total-Count: about 25-30 µs of CPU per request, against 45-110 µs for undici, which it replaced, so that the',
    'ceiling is the server\'s and not the client\'s (the 2 cores are shared).',
    'Each round measures every row right before or after its group\'s baseline (the order alternates), so each ratio',
    'compares two runs seconds apart. req/s, p50 and p99 are medians over the runs, ratios medians over the pairs',
    '(p50 ratio: latency ÷ baseline latency, lower is better).',
    '',
    resultsTable(rows),
    '',
    ...spreadLines(rows),
    'Groups:',
    '',
    ...usedGroups.map(([key, g]) => {
      const bases = rows.filter((r) => r.group === key && r.baseline).map((r) => `\`${r.scenario.name}\``);
      return `- \`${key}\`: ${g.title}; ${bases.length === 1 ? 'baseline' : 'baselines'} ${bases.join(', ')}.`;
    }),
    '',
    ...(scripts.length ? ['Checks that are scripts of their own (`SCRIPT_CHECKS` in `bench/scenarios.ts`: `bench/reload-latency.ts`, `node --expose-gc bench/sandbox-memory.ts`, `bench/noisy-neighbour.ts`, `bench/tenants-idle.ts`):', '', scriptTable(scripts), ''] : []),
    ...(memory.length ? ['Streaming: the server\'s resident memory (VmRSS, /proc) before the request and at its peak while the client reads the whole body.', '', memoryTable(memory), ''] : []),
    ...(failures.length ? ['Failed:', '', ...failures.map((r) => `- ${r.scenario.name}: ${r.failed}`), ''] : []),
    'Every run (req/s; ratios to the baseline) — and the medians of response size and CPU use (2 cores in all):',
    '',
    ...rows.map(
      (r) =>
        `- ${r.scenario.name}: ${r.runRps.map((x) => fixed(x, 0)).join(', ')}` +
        (r.baseline ? '' : `; ${r.pairRatios.map((x) => fixed(x, 2)).join(', ')}`) +
        (Number.isFinite(r.bytes) ? ` — ${fixed(r.bytes, 0)} bytes per response${r.total !== undefined ? ` (X-Total-Count ${r.total})` : ''}; CPU: server ${fixed(r.serverCpu, 2)}, bench ${fixed(r.clientCpu, 2)}, other processes ${fixed(r.otherCpu, 2)} cores` : ''),
    ),
    '',
  ].join('\n');
}
