// Running `svc serve` as a child process, for tests that kill or signal it.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './server.ts';

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | string | null>;
  /** Resolves with the first match of `re` in everything the process printed (now or later). */
  waitFor(re: RegExp): Promise<RegExpExecArray>;
}

export async function spawnServer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(join(ROOT, 'node_modules/.bin/node'), ['--disable-warning=ExperimentalWarning', join(ROOT, 'src/cli.ts'), 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
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
      void exited.then(() => {
        if (waiting.delete(check)) reject(new Error(`svc exited before printing ${re}:\n${out}`));
      });
    });
  const url = (await waitFor(/listening on (http:\/\/\S+)/))[1]!;
  return { url, child, exited, waitFor };
}
