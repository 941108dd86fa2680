// Lanes of esbuild for untrusted handler sources: each lane is its own esbuild service (its own
// process) running one build at a time, so a source that crashes esbuild or keeps it busy ends
// only its own lane, which starts afresh.

import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import type * as Esbuild from 'esbuild';

/** The part of esbuild's API a build may use in its lane. */
export type LaneEsbuild = Pick<typeof Esbuild, 'build' | 'transform'>;

/** The lane's esbuild service ended under the build (esbuild crashed: a Go `fatal error`, or it was killed). */
export class CompilerDied extends Error {}

/** The build ran longer than its time bound; its lane was stopped. */
export class CompileTimeout extends Error {}

/**
 * At most this many lanes: each is an esbuild process. Two at least, so that one app (which has
 * one build at a time, see `Compiler`) can never hold every lane.
 */
const MAX_LANES = Math.max(2, Math.min(4, availableParallelism()));

const require = createRequire(import.meta.url);
const ESBUILD_PATH = require.resolve('esbuild');

/**
 * A fresh instance of esbuild's JS API. esbuild keeps one service per module instance, and a
 * service that died answers every later call with "The service is no longer running"; a
 * CommonJS module loaded again after leaving `require.cache` is a new instance, hence a new
 * service. The cache entry is put back, so that nothing else loads a second copy by accident.
 */
function freshEsbuild(): typeof Esbuild {
  const cached = require.cache[ESBUILD_PATH];
  delete require.cache[ESBUILD_PATH];
  try {
    return require(ESBUILD_PATH) as typeof Esbuild;
  } finally {
    if (cached) require.cache[ESBUILD_PATH] = cached;
    else delete require.cache[ESBUILD_PATH];
  }
}

/** esbuild's words for a service that ended (lib/main.js, `afterClose` and `sendRequest`). */
const DEAD = /The service (?:was stopped|is no longer running)/;

class Lane {
  readonly #esbuild = freshEsbuild();
  /** The service ended under a call since the lane last started: stop it, so the next call starts a new one. */
  #dead = false;
  /** Bumped by every restart: a call of a service stopped before still rejects later, and must not mark the new one. */
  #generation = 0;
  readonly api: LaneEsbuild = {
    build: ((options: Esbuild.BuildOptions) => this.#watch(this.#esbuild.build(options))) as LaneEsbuild['build'],
    transform: ((input: string, options?: Esbuild.TransformOptions) => this.#watch(this.#esbuild.transform(input, options))) as LaneEsbuild['transform'],
  };

  #watch<T>(call: Promise<T>): Promise<T> {
    const generation = this.#generation;
    return call.catch((err: unknown) => {
      const text = String((err as Error)?.message ?? err);
      if (!DEAD.test(text)) throw err;
      if (generation === this.#generation) this.#dead = true;
      throw new CompilerDied(text);
    });
  }

  /** Ends the service (a build over its time, or one that died): the next call starts a new one. */
  restart(): void {
    this.#dead = false;
    this.#generation++;
    // stop() kills the process; a call still pending on it rejects later, or never settles: the
    // caller's timeout has answered it already.
    void this.#esbuild.stop();
  }

  /** After a call: a dead service is replaced before the lane is used again. */
  settle(): boolean {
    if (!this.#dead) return false;
    this.restart();
    return true;
  }
}

const idle: Lane[] = [];
const waiting: ((lane: Lane) => void)[] = [];
let lanes = 0;
let restarts = 0;

function acquire(): Promise<Lane> {
  const lane = idle.pop();
  if (lane) return Promise.resolve(lane);
  if (lanes < MAX_LANES) {
    lanes++;
    return Promise.resolve(new Lane());
  }
  return new Promise((resolve) => waiting.push(resolve));
}

function release(lane: Lane): void {
  const next = waiting.shift();
  if (next) next(lane);
  else idle.push(lane);
}

/**
 * Runs `work` with a lane of its own: no other build shares the lane's esbuild while it runs.
 * Rejects with `CompilerDied` when esbuild's service ended under it and with `CompileTimeout`
 * after `timeoutMs`; either way the lane starts a new service for the next build. esbuild has no
 * way to cancel a build in progress (a context's `cancel()` waits for the parse), so the time
 * bound stops the lane's process.
 */
export async function inLane<T>(timeoutMs: number, work: (esbuild: LaneEsbuild) => Promise<T>): Promise<T> {
  const lane = await acquire();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CompileTimeout(`took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work(lane.api), timeout]);
  } catch (err) {
    if (err instanceof CompileTimeout) {
      lane.restart();
      restarts++;
    }
    throw err;
  } finally {
    clearTimeout(timer);
    if (lane.settle()) restarts++;
    release(lane);
  }
}

/** How many times a lane's esbuild was restarted after a crash or a timeout (for tests and logs). */
export function compilerRestarts(): number {
  return restarts;
}

/** Starts one lane's esbuild now, so that the first compile does not pay for it. */
export function warmUp(): void {
  void inLane(30_000, (esbuild) => esbuild.transform('', { logLevel: 'silent' })).catch(() => {});
}
