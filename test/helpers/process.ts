// Running `svc serve` as a child process, for tests that kill or signal it.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './server.ts';

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | string | null>;
}

export async function spawnServer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(join(ROOT, 'node_modules/.bin/node'), ['--disable-warning=ExperimentalWarning', join(ROOT, 'src/cli.ts'), 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (d) => (out += d));
    void exited.then(() => reject(new Error(`svc exited before listening:\n${out}`)));
  });
  return { url, child, exited };
}
