// The per-request CPU-time limit (and wall-clock backstops), enforced from the host's event loop.
//
// isolated-vm's `timeout` option is wall-clock time, and it would also count the time the host
// spends on the handler's behalf (a delegate waiting for the store). Instead a host timer samples
// `isolate.cpuTime`, which stops while the isolate waits for the host, and disposes the isolate
// when the running request's share passes the limit. Handlers run on isolated-vm's thread pool,
// so this timer (and every other request) keeps running while a handler spins.
//
// `cpuTime` is exact for finished stretches of execution, but for the stretch under way it adds
// wall-clock time (a thread's CPU clock cannot be read from another thread): on a loaded machine a
// thread that the OS does not schedule would seem to burn CPU. So each sampling interval is
// credited with at most the CPU this process spent outside its main thread in that interval,
// which bounds what any isolate thread can have used.
//
// Requests wait in an isolate's queue and run one at a time, their results reaching the host in
// order; a request's accounting starts when the one before it comes back (isolate-pool.ts, Slot.run),
// or when it is submitted to an isolate with nothing else queued.

import type ivm from 'isolated-vm';
import type { Call } from './guest.ts';

export type Breach = 'cpu' | 'wall' | 'request';

/** Longest interval between samples, in milliseconds: shorter intervals give a tighter bound. */
const MAX_SAMPLE_MS = 20;

export interface WatchLimits {
  readonly cpuLimitMs: number;
  readonly wallLimitMs: number;
  readonly requestLimitMs: number;
}

/** CPU time of this process outside its main thread, in milliseconds. */
function offMainCpuMs(): number {
  const all = process.cpuUsage();
  const main = process.threadCpuUsage();
  return (all.user + all.system - main.user - main.system) / 1000;
}

/** offMainCpuMs as read in this turn of the event loop (undefined: not yet read in it). */
let offMainThisTurn: number | undefined;

/**
 * offMainCpuMs as of this turn of the event loop: the requests that start in one turn share one
 * read. `process.cpuUsage()` (getrusage, which sums every thread of the process) was 7% of the
 * event loop's CPU for a retrieve through an isolate (bench/profile.ts). A read up to a turn old
 * only lets the first interval credit the CPU other threads spent in the rest of that turn.
 */
function offMainCpuMsThisTurn(): number {
  if (offMainThisTurn === undefined) {
    offMainThisTurn = offMainCpuMs();
    setImmediate(() => (offMainThisTurn = undefined));
  }
  return offMainThisTurn;
}

/** Watches the request running in one isolate; on a breach calls `breached` once for it. */
export class Watchdog {
  readonly #isolate: ivm.Isolate;
  readonly #limits: WatchLimits;
  readonly #breached: (breach: Breach, call: Call) => void;
  #running: Call | undefined;
  #t0 = 0;
  #lastCpu = 0n;
  /**
   * CPU of the process outside its main thread at the last sample, or at the start: the first
   * interval is bounded too. It was credited in full (a read saved per request, since most end
   * before the first sample), but that sample comes as late as the event loop lags, and on a busy
   * machine a handler that used 30 ms of CPU was charged 100 to 180 ms of wall-clock time (its
   * thread waiting for a core, or the next queued request running) and broke a 100 ms limit.
   */
  #lastOff = 0;
  #usedMs = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(isolate: ivm.Isolate, limits: WatchLimits, breached: (breach: Breach, call: Call) => void) {
    this.#isolate = isolate;
    this.#limits = limits;
    this.#breached = breached;
  }

  /**
   * The isolate runs `call` from now on: its accounting starts now. The sampling timer keeps
   * running from one request to the next (one timer per busy isolate, not one per request).
   */
  start(call: Call): void {
    if (this.#isolate.isDisposed) return;
    this.#running = call;
    this.#t0 = performance.now();
    this.#lastCpu = this.#isolate.cpuTime;
    this.#lastOff = offMainCpuMsThisTurn();
    this.#usedMs = 0;
    this.#timer ??= setTimeout(this.#check, Math.min(MAX_SAMPLE_MS, this.#limits.cpuLimitMs));
  }

  /** `call` is complete; the timer stops at its next tick if no other request started. */
  end(call: Call): void {
    if (this.#running !== call) return;
    this.#running = undefined;
    if (!this.#isolate.isDisposed) call.ex.usage.handlerCpuMs += this.#usedMs + Number(this.#isolate.cpuTime - this.#lastCpu) / 1e6;
  }

  /** How long the running request has been running, in milliseconds (0 when none is). */
  get runningMs(): number {
    return this.#running ? performance.now() - this.#t0 : 0;
  }

  #check = (): void => {
    this.#timer = undefined;
    const call = this.#running;
    if (!call || this.#isolate.isDisposed) return;
    const { cpuLimitMs, wallLimitMs, requestLimitMs } = this.#limits;
    const cpu = this.#isolate.cpuTime;
    const off = offMainCpuMs();
    const cpuMs = Number(cpu - this.#lastCpu) / 1e6;
    this.#usedMs += Math.min(cpuMs, Math.max(0, off - this.#lastOff));
    this.#lastCpu = cpu;
    this.#lastOff = off;
    const now = performance.now();
    const elapsed = now - this.#t0;
    // Time in host calls is the host's, not the handler's.
    const wallMs = elapsed - call.hostMs - (call.hostSince !== undefined ? now - call.hostSince : 0);
    const breach: Breach | undefined =
      this.#usedMs >= cpuLimitMs ? 'cpu' : wallMs >= wallLimitMs ? 'wall' : elapsed >= requestLimitMs ? 'request' : undefined;
    if (breach) {
      this.#running = undefined;
      call.ex.usage.handlerCpuMs += this.#usedMs;
      this.#breached(breach, call);
      return;
    }
    this.#timer = setTimeout(this.#check, Math.max(1, Math.min(MAX_SAMPLE_MS, cpuLimitMs - this.#usedMs, wallLimitMs - wallMs, requestLimitMs - elapsed)));
  };

  stop(): void {
    this.#running = undefined;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
