// Every limit of the server, in one place: its unit, its default, and what a request sees over it.

import { DEFAULT_STORE_TIME_MS } from '../store/store.ts';

export interface Limits {
  /** Largest request body, in bytes. Default 1 MiB; over it: 413 `body-too-large`. */
  readonly maxBodyBytes: number;
  /** Longest request target (path and query), in bytes. Default 8 KiB; over it: 414 `uri-too-long`. */
  readonly maxUrlBytes: number;
  /**
   * Time to receive a request's headers and body, in milliseconds; also how long a response may
   * wait for a client that stops reading. Default 30 000; then the connection is closed.
   */
  readonly requestTimeoutMs: number;
  /** Handler CPU time per request (isolate CPU time, not wall time), in milliseconds. Default 100; over it: 503 `handler-cpu-limit`. */
  readonly cpuLimitMs: number;
  /**
   * Handler wall-clock time per request, in milliseconds, not counting time the host spends on
   * the handler's behalf (delegate, model API, waiting for the client to read): a backstop for a
   * handler that blocks without using CPU. Default max(1000, 10 × cpuLimitMs); over it: 503 `handler-time-limit`.
   */
  readonly wallLimitMs: number;
  /**
   * Wall-clock time of one handler request, host work included, in milliseconds: bounds a handler
   * that keeps the host busy with runtime calls. Default 30 000; over it: 503 `handler-time-limit`.
   */
  readonly requestLimitMs: number;
  /**
   * Server time one request's model-API calls (`svc.collection(…)`) may use, in milliseconds: the
   * store runs outside the isolate's CPU limit. Default 1000; over it, further calls throw an Error.
   */
  readonly modelLimitMs: number;
  /**
   * Store time one query may use, in milliseconds: time the engine works on it (not time waiting
   * for a slow client between members). A list is two queries, its count and its members. Default
   * 5000; past it the engine stops the query: 503 `store-time-limit` (or the connection is cut
   * once the list was committed). A model-API call gets the smaller of this and what is left of
   * modelLimitMs.
   */
  readonly storeLimitMs: number;
  /** Heap of one isolate, in MiB (isolated-vm `memoryLimit`; minimum 8). Default 64; over it: 503 `handler-memory-limit`, isolate replaced. */
  readonly memoryLimitMiB: number;
  /** Body bytes one handler response may write (echo, render). Default 16 MiB; over it: 503 `handler-output-limit`, or the connection is cut. */
  readonly maxOutputBytes: number;
  /**
   * Bytes of members the server gathers for a handler in one piece, counted as their JSON (UTF-8):
   * what one model-API `list()` returns, and `/event/resource/collection` after `delegate()` on a
   * list. Checked member by member while reading, so the host never holds more than this (plus one
   * member) per call. Default 8 MiB (room to parse it in a 64 MiB isolate); over it, `list()`
   * throws an Error and reading `/event/resource/collection` throws one, while the response of a
   * `delegate()` still streams every member.
   */
  readonly maxResultBytes: number;
  /** Isolates one app may have; each runs one request at a time and holds up to memoryLimitMiB. Default 4. */
  readonly maxIsolates: number;
  /** An isolate beyond an app's first that served nothing for this long is disposed, in milliseconds. Default 30 000. */
  readonly idleMs: number;
  /** `fetch()` calls one request's handler may make. Default 10; more throw. */
  readonly fetchCount: number;
  /** Time one `fetch()` may take, connection to last byte, in milliseconds. Default 5000; then it rejects. */
  readonly fetchTimeoutMs: number;
  /**
   * Response body bytes one `fetch()` may read. Default 1 MiB; a longer body rejects. What the
   * server reads for the response in all (1xx responses, headers, framing) is at most twice this
   * plus 64 KiB (ops/fetch.ts FETCH_WIRE_SLACK).
   */
  readonly fetchMaxBytes: number;
  /**
   * Source bytes of one handler, its entry file and the files it imports together, in bytes.
   * Default 256 KiB (a hand-written handler is a few KiB; this is some 6,000 lines); a larger
   * one is 500 `handler-compile-error` naming this limit, and is never read whole.
   */
  readonly maxHandlerBytes: number;
  /**
   * Files one handler's build may read or look for, its entry file and the files it imports
   * together, each name an import looked for counted once (an import without its extension looks
   * for up to eight: `./x`, `./x.ts`, `./x.js`, …, `./x/index.js`). Every request stats each of
   * them, on the event loop all apps share, to see a change (about 1 µs each). Default 512 (a
   * hand-written handler reads a few; this is a small vendored library); over it the handler is
   * 500 `handler-compile-error` naming this limit, and the build looks for no more.
   */
  readonly maxHandlerFiles: number;
  /**
   * Time esbuild may take to compile one handler, in milliseconds. Default 5000 (a handler of
   * maxHandlerBytes compiles in well under 1 s); over it the build's esbuild process is stopped
   * and the handler is 500 `handler-compile-error` until its content changes.
   */
  readonly compileTimeoutMs: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = {
  maxBodyBytes: 1024 * 1024,
  maxUrlBytes: 8 * 1024,
  requestTimeoutMs: 30_000,
  cpuLimitMs: 100,
  wallLimitMs: 1000,
  requestLimitMs: 30_000,
  modelLimitMs: 1000,
  storeLimitMs: DEFAULT_STORE_TIME_MS,
  memoryLimitMiB: 64,
  maxOutputBytes: 16 * 1024 * 1024,
  maxResultBytes: 8 * 1024 * 1024,
  maxIsolates: 4,
  idleMs: 30_000,
  fetchCount: 10,
  fetchTimeoutMs: 5000,
  fetchMaxBytes: 1024 * 1024,
  maxHandlerBytes: 256 * 1024,
  maxHandlerFiles: 512,
  compileTimeoutMs: 5000,
};

/** The limits with `given` applied; an unset wall limit follows the CPU limit, and floors are enforced. */
export function resolveLimits(given: Partial<Limits> = {}): Limits {
  const cpuLimitMs = given.cpuLimitMs ?? DEFAULT_LIMITS.cpuLimitMs;
  return {
    ...DEFAULT_LIMITS,
    ...given,
    cpuLimitMs,
    wallLimitMs: given.wallLimitMs ?? Math.max(DEFAULT_LIMITS.wallLimitMs, 10 * cpuLimitMs),
    memoryLimitMiB: Math.max(8, given.memoryLimitMiB ?? DEFAULT_LIMITS.memoryLimitMiB),
    maxIsolates: Math.max(1, given.maxIsolates ?? DEFAULT_LIMITS.maxIsolates),
  };
}
