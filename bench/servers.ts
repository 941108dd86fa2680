// The servers under load: each in its own child process of this node (24), found by the URL it prints.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { NODE_FLAGS } from '../src/node-flags.ts';
import type { AppSource, ServerSpec } from './scenarios.ts';
import { writeJsonServerSeed, type Seeds } from './seed.ts';

export const ROOT = new URL('..', import.meta.url).pathname;
/** How long a server may take to print its URL, in milliseconds. */
const START_TIMEOUT_MS = 30_000;
/** How long a server may take to exit after SIGTERM before it is killed, in milliseconds. */
const STOP_TIMEOUT_MS = 5_000;
const LISTENING = /listening on (http:\/\/\S+)/;

export interface Started {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  /** The last lines the server wrote to stderr (for failure reports). */
  stderr(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly seeds: Seeds;
  /** Where database files and generated app directories go. */
  readonly dataDir: string;
  /** Extra node flags for svc servers (e.g. --cpu-prof). */
  readonly nodeArgs: readonly string[];
  readonly log: (line: string) => void;
}

/** Writes a generated app directory, or returns the existing one. */
function appDir(app: AppSource, name: string, dataDir: string): string {
  if ('dir' in app) return app.dir;
  const dir = join(dataDir, `app-${name}`);
  mkdirSync(join(dir, 'models'), { recursive: true });
  mkdirSync(join(dir, 'resources'), { recursive: true });
  for (const [model, file] of Object.entries(app.models)) copyFileSync(file, join(dir, 'models', `${model}.json`));
  for (const [collection, source] of Object.entries(app.resources)) writeFileSync(join(dir, 'resources', `${collection}.ts`), source);
  return dir;
}

export async function startServer(name: string, spec: ServerSpec, opts: StartOptions): Promise<Started> {
  let args: string[];
  let env: NodeJS.ProcessEnv = process.env;
  let cwd = ROOT;
  if (spec.kind === 'script') {
    args = [...NODE_FLAGS, join(ROOT, spec.file), ...(spec.args ?? [])];
  } else if (spec.kind === 'json-server') {
    // A directory of its own: the database file, lowdb's temporary file beside it, and an empty
    // `public/`, which json-server serves from its working directory and, with NODE_ENV=production,
    // fails to start without.
    cwd = join(opts.dataDir, name);
    mkdirSync(join(cwd, 'public'), { recursive: true });
    const file = join(cwd, 'db.json');
    writeJsonServerSeed(file, spec.members);
    args = ['--no-node-snapshot', join(ROOT, 'bench', 'json-server.ts'), file];
    // json-server's fastest mode: no file watcher, no per-request static file lookup.
    env = { ...process.env, NODE_ENV: 'production' };
  } else {
    const dir = appDir(spec.app, name, opts.dataDir);
    const db = spec.members > 0
      ? await opts.seeds.copy(join(dir, 'models', 'employees.json'), spec.members, opts.log)
      : join(opts.dataDir, `${name}.sqlite`);
    args = [
      ...NODE_FLAGS,
      ...opts.nodeArgs,
      ...(spec.nodeArgs ?? []),
      join(ROOT, spec.entry ?? join('src', 'cli.ts')),
      'serve',
      '--app', dir,
      '--host', '127.0.0.1',
      '--port', '0',
      '--store', `sqlite:${db}`,
      ...(spec.args ?? []),
    ];
    // The request log (one line per request at info) is measured by its own row, not by every row.
    env = { ...process.env, SVC_LOG_LEVEL: 'warn', ...spec.env };
  }
  // Standard error goes to a file, as a server's log would: read by the load generator's process
  // (a pipe split into lines), the request log's lines took CPU from the load generator, about 9%
  // of the logged row's rate in an A/B run.
  const errFile = join(opts.dataDir, `${name}.stderr`);
  const errFd = openSync(errFile, 'w');
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', errFd] });
  closeSync(errFd);
  /** The last lines the server wrote to standard error. */
  const stderr = () => readFileSync(errFile, 'utf8').split('\n').slice(-21).join('\n');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(`printed no URL within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`server ${name} ${why}\n${stderr()}`));
    };
    child.once('exit', (code, signal) => fail(`exited (${signal ?? code}) before listening`));
    child.once('error', (e) => fail(`could not start: ${e.message}`));
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = LISTENING.exec(line);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      lines.removeAllListeners('line');
      resolve(m[1]!);
    });
  });
  // Keep draining stdout so a chatty server never blocks on a full pipe.
  child.stdout!.resume();
  opts.log(`${name}: ${url} (pid ${child.pid})`);
  return { name, url, pid: child.pid!, stderr, stop: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** `pid` and every process under it (the workers of `--workers N`), from /proc. */
export function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${all[i]}/task`);
    } catch {
      continue; // gone meanwhile
    }
    for (const task of tasks) {
      try {
        for (const child of readFileSync(`/proc/${all[i]}/task/${task}/children`, 'utf8').trim().split(/\s+/)) if (child) all.push(Number(child));
      } catch {
        // gone meanwhile
      }
    }
  }
  return all;
}

/**
 * Resident memory of process `pid` and the processes under it (VmRSS), and the sum of their
 * peaks so far (VmHWM), in bytes: a server's memory, workers included.
 */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  let rss = 0;
  let hwm = 0;
  for (const p of processTree(pid)) {
    let status: string;
    try {
      status = readFileSync(`/proc/${p}/status`, 'utf8');
    } catch {
      continue;
    }
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    rss += kb('VmRSS');
    hwm += kb('VmHWM');
  }
  return { rss, hwm };
}

/**
 * CPU time process `pid` and the processes under it have used so far (user + system), in
 * seconds; NaN once `pid` has exited. A worker that exited meanwhile is no longer counted.
 */
export function cpuOf(pid: number, part: 'all' | 'user' = 'all'): number {
  let total = 0;
  for (const p of processTree(pid)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${p}/stat`, 'utf8');
    } catch {
      if (p === pid) return NaN; // a crashed server: its requests fail and the report says so
      continue;
    }
    // Fields after the command name, which is in parentheses and may hold spaces: utime is 14th, stime 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Clock ticks are 1/100 s on Linux (USER_HZ), which /proc reports in.
    total += (Number(fields[11]) + (part === 'all' ? Number(fields[12]) : 0)) / 100;
  }
  return total;
}

/** CPU time the whole machine has spent busy so far (all processes, all cores), in seconds. */
export function machineBusy(): number {
  // cpu  user nice system idle iowait irq softirq steal …, in 1/100 s.
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / 100;
}
