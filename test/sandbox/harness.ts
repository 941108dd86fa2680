// Sandbox tests' common ground: a real server on port 0 whose apps run handlers in the sandbox, with its log captured.

import { join } from 'node:path';
import type { Limits } from '../../src/exchange/limits.ts';
import { textSink } from '../../src/exchange/log.ts';
import { createSandboxRuntime, type SandboxOptions } from '../../src/sandbox/runtime.ts';
import { makeApp, ROOT, startServer, type AppFiles, type TestServer } from '../helpers/server.ts';

export const FIXTURES = join(ROOT, 'test', 'fixtures', 'apps');

/** A model with one required string field and an integer, for handler tests. */
export const PEOPLE = { fields: { name: { type: 'string', required: true }, age: { type: 'integer' } } };

export interface SandboxServer {
  readonly server: TestServer;
  /** The app directory (a temporary copy: tests may change its files). */
  readonly dir: string;
  /** Lines the server (and the sandbox in it) logged so far. */
  readonly log: string[];
  /** Absolute URL of a path. */
  at(path: string): string;
  /** Writes a file of the app (path relative to the app directory). */
  write(rel: string, content: string): void;
  close(): Promise<void>;
}

export interface Options {
  dev?: boolean;
  limits?: Partial<Limits>;
  sandbox?: SandboxOptions;
  /** --max-rss and what ends the process over it (test/helpers/server.ts StartOptions). */
  maxRssMiB?: number;
  endProcess?: () => void;
}

/** A server for an app made of `files` in a temporary directory. */
export async function sandboxServer(files: AppFiles, opts: Options = {}): Promise<SandboxServer> {
  const { dir, write, cleanup } = makeApp(files);
  const log: string[] = [];
  const server = await startServer({
    appDir: dir,
    dev: opts.dev ?? false,
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.maxRssMiB !== undefined ? { maxRssMiB: opts.maxRssMiB } : {}),
    ...(opts.endProcess ? { endProcess: opts.endProcess } : {}),
    log: textSink((line) => log.push(line)),
    ...(opts.sandbox ? { runtime: (scope) => createSandboxRuntime(scope, opts.sandbox) } : {}),
  });
  return {
    server,
    dir,
    log,
    at: (path) => server.at(path),
    write,
    async close() {
      await server.close();
      cleanup();
    },
  };
}

/** A server for a copy of the fixture app `test/fixtures/apps/<name>`. */
export function fixtureServer(name: string, opts: Options = {}): Promise<SandboxServer> {
  return sandboxServer({ copyOf: join(FIXTURES, name) }, opts);
}

/** JSON body of a response, typed loosely for assertions. */
export async function body(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Waits until `check` is true (handler code may still run after its response is complete), at
 * most `ms`: a bound for a failing test, generous enough for a loaded machine.
 */
export async function eventually(check: () => boolean, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}
