// Running `svc serve` as a child process, for tests that kill or signal it.

import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NODE_FLAGS } from '../../src/node-flags.ts';
import { ROOT } from './server.ts';

/** Node, as svc's npm scripts, bin/svc.js and the Dockerfile start it (see the README, Deploying). */
export const NODE = join(ROOT, 'node_modules/.bin/node');
export { NODE_FLAGS };

const execFileAsync = promisify(execFile);

/** `svc …args` (the CLI, e.g. `check`) run to its end on the project's Node with svc's flags and `nodeFlags`: exit code and all output. */
export async function runSvc(args: readonly string[], nodeFlags: readonly string[] = []): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(NODE, [...NODE_FLAGS, ...nodeFlags, join(ROOT, 'src/cli.ts'), ...args]);
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout + err.stderr };
  }
}

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | string | null>;
  /** Resolves once its output is read to the end (a child process it left behind may hold it open). */
  readonly closed: Promise<void>;
  /** Everything it wrote so far, stdout and stderr. */
  output(): string;
  /** Resolves with the first match of `re` in everything the process printed (now or later). */
  waitFor(re: RegExp): Promise<RegExpExecArray>;
}

/** `svc serve --port 0 …args` on the project's Node with svc's flags. */
export function spawnServer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  return spawnListening(NODE, [...NODE_FLAGS, join(ROOT, 'src/cli.ts'), 'serve', '--port', '0', ...args], { env: { ...process.env, ...env } });
}

/** Any command that ends up in `svc serve`: resolves once it printed the URL it listens on. */
export async function spawnListening(command: string, args: string[], opts: SpawnOptions = {}): Promise<ServerProcess> {
  const child = spawn(command, args, { cwd: ROOT, ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  let out = '';
  const waiting = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d;
    for (const check of waiting) check();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const waitFor = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = re.exec(out);
        if (m) {
          waiting.delete(check);
          resolve(m);
        }
      };
      waiting.add(check);
      check();
      child.on('error', reject);
      void exited.then(() => {
        if (waiting.delete(check)) reject(new Error(`${command} exited before printing ${re}:\n${out}`));
      });
    });
  const url = (await waitFor(/listening on (http:\/\/\S+)/))[1]!;
  return { url, child, exited, closed, output: () => out, waitFor };
}
