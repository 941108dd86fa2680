// `node bench/perf.ts <path> [seconds] [server]`: where one svc server's whole CPU time goes, the
// kernel's and native code's included, which `bench/profile.ts` (V8's --cpu-prof) cannot see.
// With PERF_OWNER=<part of an owner's name>, also the innermost frames of that owner's samples.
// Linux `perf record` samples the server (started with --perf-basic-prof, so JIT frames have
// names) while it is loaded with one request path; each sample is then charged to its owner:
// the innermost svc function (src/) or package on its stack, or, for a stack without one, the
// native part it is in (socket write, HTTP parser, compiler, …). Also per thread, and the
// kernel's share. Needs `perf` (Debian: linux-perf) and root or perf_event_paranoid ≤ 1; prints
// one "skipped" line otherwise. For finding where a row's time goes, not for figures: sampling
// costs the server about a fifth of its rate.
//
//   node bench/perf.ts '/resources/employees/{id}' 5 svc

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from './load.ts';
import { commandLineScenario, SERVERS } from './scenarios.ts';
import { Seeds } from './seed.ts';
import { startServer } from './servers.ts';

const [target = '/resources/employees/{id}', seconds = '5', serverName = 'svc'] = process.argv.slice(2);
const spec = SERVERS[serverName];
if (!spec) throw new Error(`no server ${serverName}`);
try {
  execFileSync('perf', ['record', '-o', '/dev/null', '-q', 'true'], { stdio: 'ignore' });
} catch {
  console.log('skipped: perf cannot record here (not installed, or perf_event_paranoid too high without root)');
  process.exit(0);
}

// With --perf-basic-prof, V8 also writes a log per isolate (isolated-vm's too) into the working directory: not wanted.
const PROF_FLAGS = ['--perf-basic-prof', '--no-logfile-per-isolate', '--logfile=/dev/null'];
const dir = mkdtempSync(join(tmpdir(), 'svc-perf-'));
const data = join(dir, 'perf.data');
const log = (line: string) => console.error(`perf: ${line}`);
const server = await startServer(serverName, spec, { seeds: new Seeds(dir, dir), dataDir: dir, nodeArgs: PROF_FLAGS, log });
const scenario = commandLineScenario(target, serverName, 'perf');
let requests = 0;
try {
  // Warm-up: compiled code, not the compiler. Twice, on new connections: the first connections'
  // close deoptimizes Node's stream code (it had seen only one kind of stream), and its
  // re-optimization took 9% of the next 5 s of a filtered page's samples.
  for (let i = 0; i < 2; i++) await runLoad(server.url, scenario, { seconds: 1, connections: 32 });
  const recorder = spawn('perf', ['record', '-F', '2000', '-g', '-q', '-o', data, '-p', String(server.pid)], { stdio: 'ignore' });
  const m = await runLoad(server.url, scenario, { seconds: Number(seconds), connections: 32 });
  requests = m.requests;
  const recorded = new Promise((resolve) => recorder.once('exit', resolve));
  recorder.kill('SIGINT');
  await recorded;
  console.log(`${target} on ${serverName}: ${Math.round(m.rps)} req/s under perf`);
} finally {
  await server.stop();
}

interface Sample {
  readonly thread: string;
  /** Frames, innermost first. */
  readonly frames: string[];
}
const samples: Sample[] = [];
let current: Sample | undefined;
const script = execFileSync('perf', ['script', '-i', data, '-F', 'comm,tid,ip,sym'], { maxBuffer: 1 << 30, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
for (const line of script.split('\n')) {
  if (line.trim() === '') {
    current = undefined;
  } else if (!line.startsWith('\t')) {
    current = { thread: line.trim(), frames: [] };
    samples.push(current);
  } else if (current) {
    current.frames.push(line.trim().replace(/^[0-9a-f]+\s+/, ''));
  }
}
rmSync(dir, { recursive: true, force: true });
rmSync(`/tmp/perf-${server.pid}.map`, { force: true }); // --perf-basic-prof's symbol map, read by perf script
if (samples.length === 0) throw new Error('perf recorded no samples');

const pct = (n: number) => `${((100 * n) / samples.length).toFixed(1).padStart(5)}%`;
const top = (counts: Map<string, number>, n: number) => [...counts].sort((a, b) => b[1] - a[1]).slice(0, n);
const add = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

// 2000 samples per second of CPU: this many µs of the server's CPU per request.
console.log(`${samples.length} samples, ≈ ${((samples.length * 500) / requests).toFixed(1)} µs of server CPU per request (with perf's own cost)\n`);

// isolated-vm's isolate threads are named like the main thread: told apart by thread id.
const threads = new Map<string, number>();
for (const s of samples) {
  const [comm, tid] = s.thread.split(/\s+/);
  add(threads, Number(tid) === server.pid ? `${comm} (the event loop)` : comm!);
}
console.log('by thread:');
for (const [name, n] of top(threads, 8)) console.log(`${pct(n)}  ${name}`);

/** The innermost svc function or package on the stack, else the native part the sample is in. */
function owner(frames: readonly string[]): string {
  for (const f of frames) {
    const src = /^JS:\S?'?(\S*) file:\/\/\S*?\/(src\/\S+)/.exec(f);
    if (src) return `${src[1] || '(anonymous)'} ${src[2]}`;
    const pkg = /^JS:.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f);
    if (pkg) return `package ${pkg[1]}`;
  }
  const all = frames.join(' ');
  if (all.includes('StreamBase::Writev')) return '(native) socket write';
  if (/Compil|Maglev|Turbofan/.test(all)) return '(V8) optimizing compiler';
  if (/Heap::|Scaveng|MarkCompact|GCTracer/.test(all)) return '(V8) garbage collector';
  if (all.includes('sqlite3')) return '(native) SQLite';
  // Node's own JavaScript (node:http and streams), by its innermost function.
  const js = frames.find((f) => f.startsWith('JS:'));
  if (js) return `(node) ${js.replace(/^JS:\S?'?/, '').slice(0, 80)}`;
  if (all.includes('llhttp')) return '(native) HTTP parser';
  if (all.includes('uv__read')) return '(native) socket read';
  return `(native) ${frames[0]?.slice(0, 60) ?? '?'}`;
}
const owners = new Map<string, number>();
for (const s of samples) add(owners, owner(s.frames));
console.log('\nby owner (the innermost svc function or package on the stack; else where the sample is):');
for (const [name, n] of top(owners, 30)) console.log(`${pct(n)}  ${name}`);

// PERF_OWNER=<part of an owner's name>: where that owner's samples are, by their three innermost frames.
const wanted = process.env.PERF_OWNER;
if (wanted) {
  const leaves = new Map<string, number>();
  for (const s of samples) if (owner(s.frames).includes(wanted)) add(leaves, s.frames.slice(0, 3).map((f) => f.slice(0, 50)).join(' < '));
  console.log(`\nsamples of owners matching ${JSON.stringify(wanted)}, by their three innermost frames:`);
  for (const [name, n] of top(leaves, 25)) console.log(`${pct(n)}  ${name}`);
}

/** Shares of parts that are under many owners, counted once per sample. */
const PARTS: [string, RegExp][] = [
  ['kernel (any)', /^(entry_SYSCALL|do_syscall_64|asm_|__x64_sys|irq|ret_from)/],
  ['socket write (writev, loopback delivery included)', /StreamBase::Writev/],
  ['waking the reader of a socket (sock_def_readable)', /^sock_def_readable$/],
  ['SQLite', /^sqlite3_step$|^sqlite3_prepare/],
  ['SQLite file locks (fcntl)', /^__x64_sys_fcntl$/],
  ['SQLite page reads (pread)', /^__x64_sys_pread64$/],
  ['JSON.parse', /Builtin_JsonParse/],
  ['JSON.stringify', /Builtin_JsonStringify/],
  ['UTF-8 encoding of strings', /String::WriteUtf8|Utf8Length/],
  ['isolated-vm hand-offs (futex, thread wake-ups)', /futex_wait|futex_wake|pthread_cond_signal/],
  ['isolated-vm: the caller\'s stack, captured per call (StackTrace::CurrentStackTrace)', /StackTrace::CurrentStackTrace/],
];
console.log('\nparts (each sample counted once per part):');
for (const [name, re] of PARTS) {
  const n = samples.filter((s) => s.frames.some((f) => re.test(f))).length;
  console.log(`${pct(n)}  ${name}`);
}
