// The sandbox's limits and knobs, each with its unit and default.

export interface SandboxOptions {
  /** Handler CPU time per request, in milliseconds (isolate CPU time, not wall time). Default 100; over it: 503. */
  cpuLimitMs?: number;
  /**
   * Handler wall-clock time per request, in milliseconds, not counting time the host spends on
   * the handler's behalf (delegate, model API, waiting for the client to read). A backstop for a
   * handler that blocks without using CPU. Default max(1000, 10 × cpuLimitMs); over it: 503.
   */
  wallLimitMs?: number;
  /**
   * Wall-clock time of one handler request, host work included, in milliseconds: bounds a handler
   * that keeps the host busy with runtime calls (which are not its CPU time). Default 30 000; over it: 503.
   */
  requestLimitMs?: number;
  /**
   * Server time a request's model-API calls (`svc.collection(…)`) may use, in milliseconds. The
   * store runs on the server's event loop, outside the isolate's CPU limit, so this bounds the
   * work a handler can make the server do for it. Default 1000; over it, every further model-API
   * call of the request throws an Error.
   */
  modelLimitMs?: number;
  /** Heap of one isolate, in MiB (isolated-vm `memoryLimit`; minimum 8). Default 64; over it: 503, isolate replaced. */
  memoryLimitMiB?: number;
  /** Body bytes one handler response may write (echo, write, render). Default 16 MiB; over it: 503, or the connection is cut. */
  maxOutputBytes?: number;
  /**
   * Isolates one app may have. Each runs one request at a time and queues a few more (see
   * isolate-pool.ts); each holds up to memoryLimitMiB. Default 4. An app starts with none and
   * keeps one while idle.
   */
  maxIsolates?: number;
  /** An isolate beyond the first that served nothing for this long is disposed, in milliseconds. Default 30 000. */
  idleMs?: number;
  /** Development mode: problems carry handler messages, files and lines. Default false. */
  dev?: boolean;
  /** Where handler console output and sandbox events go, one line each. Default `console.error`. */
  log?: (line: string) => void;
  /**
   * Called when isolated-vm reports a catastrophic error (V8 lost control of an isolate). Default:
   * log it, refuse further handler work (503), send the process SIGTERM so that it shuts down
   * gracefully, and abort it if it is still alive 10 s later. See the README, "Isolation and limits".
   */
  onCatastrophicError?: (message: string) => void;
}

export type Limits = Required<Omit<SandboxOptions, 'log' | 'onCatastrophicError' | 'dev'>> & {
  readonly dev: boolean;
  readonly log: (line: string) => void;
};

export const DEFAULT_CPU_LIMIT_MS = 100;
export const DEFAULT_MEMORY_LIMIT_MIB = 64;
export const DEFAULT_MODEL_LIMIT_MS = 1000;
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_ISOLATES = 4;
export const DEFAULT_IDLE_MS = 30_000;
export const DEFAULT_REQUEST_LIMIT_MS = 30_000;

export function resolveOptions(opts: SandboxOptions): Limits {
  const cpuLimitMs = opts.cpuLimitMs ?? DEFAULT_CPU_LIMIT_MS;
  return {
    cpuLimitMs,
    wallLimitMs: opts.wallLimitMs ?? Math.max(1000, 10 * cpuLimitMs),
    requestLimitMs: opts.requestLimitMs ?? DEFAULT_REQUEST_LIMIT_MS,
    memoryLimitMiB: Math.max(8, opts.memoryLimitMiB ?? DEFAULT_MEMORY_LIMIT_MIB),
    modelLimitMs: opts.modelLimitMs ?? DEFAULT_MODEL_LIMIT_MS,
    maxOutputBytes: opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    maxIsolates: Math.max(1, opts.maxIsolates ?? DEFAULT_MAX_ISOLATES),
    idleMs: opts.idleMs ?? DEFAULT_IDLE_MS,
    dev: opts.dev ?? false,
    log: opts.log ?? ((line: string) => console.error(line)),
  };
}
