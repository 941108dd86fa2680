// Flakiness check: runs test files (or the whole suite) n times in a row through tap and reports every failure.
//
//   npm run test:repeat -- test/integration/crash-durability.test.ts 30
//   npm run test:repeat -- --busy 2 5          # the whole suite 5 times, both cores of a 2-core machine kept busy
//
// --busy K starts K processes that spin for the whole run (a CI machine under load). Each failing
// run's full TAP output is kept in a log file; the exit code is 1 if any run failed.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: npm run test:repeat -- [--busy K] [FILE|DIR ...] N   (no FILE: the whole suite)';

interface Run {
  readonly ok: boolean;
  readonly ms: number;
  readonly output: string;
  /** The signal that ended tap itself, if one did (sent from outside the run). */
  readonly signal: NodeJS.Signals | null;
}

/** The tap run under way, ended with this script. */
let current: ChildProcess | undefined;

/** One tap run of `files` (none: the suite's `include`), its output captured. */
function runOnce(files: string[]): Promise<Run> {
  const started = performance.now();
  // tap's own bin runs on `node` from PATH: make that the Node this script runs on (the project's Node 24).
  const env = { ...process.env, PATH: [join(ROOT, 'node_modules', '.bin'), dirname(process.execPath), process.env.PATH].join(delimiter) };
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tap'), ['--reporter=tap', '--no-color', ...files], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  current = child;
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ ok: code === 0, ms: performance.now() - started, output, signal }));
  });
}

/** The failed assertions and files of a TAP stream: its `not ok` lines. */
function failures(output: string): string[] {
  return output.split('\n').filter((l) => /^\s*not ok /.test(l)).map((l) => l.trim());
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { busy: { type: 'string' } } });
  const n = Number(positionals.at(-1));
  const busy = values.busy === undefined ? 0 : Number(values.busy);
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(busy) || busy < 0) {
    console.error(USAGE);
    return 2;
  }
  const files = positionals.slice(0, -1);
  const what = files.length === 0 ? 'the whole suite' : files.join(' ');
  const spinners: ChildProcess[] = Array.from({ length: busy }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  process.on('exit', () => spinners.forEach((p) => p.kill('SIGKILL')));
  // Stopped: tap ends its test processes when it gets the signal.
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.on(signal, () => {
      console.log(`test:repeat: ${signal}, stopping`);
      current?.kill(signal);
      process.exit(code);
    });
  }

  console.log(`${what}, ${n} run${n === 1 ? '' : 's'}${busy ? `, ${busy} busy process${busy === 1 ? '' : 'es'} alongside` : ''}`);
  let logs: string | undefined;
  const times: number[] = [];
  let failed = 0;
  for (let i = 1; i <= n; i++) {
    const run = await runOnce(files);
    times.push(run.ms);
    if (run.ok) {
      console.log(`run ${i}/${n}: ok in ${seconds(run.ms)}`);
      continue;
    }
    failed++;
    logs ??= mkdtempSync(join(tmpdir(), 'svc-test-repeat-'));
    const log = join(logs, `run-${i}.log`);
    writeFileSync(log, run.output);
    console.log(`run ${i}/${n}: FAILED in ${seconds(run.ms)}, full output in ${log}`);
    if (run.signal) console.log(`  tap itself was ended by ${run.signal}, from outside this run`);
    for (const line of failures(run.output)) console.log(`  ${line}`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  console.log(`${n - failed} of ${n} runs passed, ${failed} failed; time min ${seconds(sorted[0]!)}, median ${seconds(median)}, max ${seconds(sorted.at(-1)!)}`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
process.exit();
