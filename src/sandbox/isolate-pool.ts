// An app's isolates: created on demand, requests queued on them, replaced after a fault.
//
// An isolate runs one request at a time, and its thread is blocked while the host works for it
// (a delegate reading the store). One isolate per app would make every request of the app wait
// behind a handler that spins until its CPU limit; so an app has up to `maxIsolates`, and a new
// request goes to an idle one, else to the least loaded one whose running request is not stuck.
// Queueing a few requests on one isolate is what keeps the cost per request low: isolated-vm then
// runs them back to back without waking threads for each. The isolates beyond the first are
// disposed after `idleMs` without work, so an idle app holds one (~1.5 MB plus its handlers).
//
// Disposing an isolate ends its requests at once, but not always its thread: V8 notices the
// termination only between operations, so a long native call (sorting a large typed array,
// filling a huge array) runs on for seconds. Such an isolate still counts against the app's
// `maxIsolates` until its thread is free, so that an app cannot have more threads burning CPU
// than it may have isolates, however often it breaks its limits.

import ivm from 'isolated-vm';
import { installRuntime, type GuestApi } from './bridge.ts';
import type { Call } from './guest.ts';
import type { Artifact } from './compile.ts';
import type { Limits } from '../exchange/limits.ts';
import { Watchdog } from './watchdog.ts';
import { freedMemory } from '../malloc-trim.ts';
import { TurnBatch } from '../turn.ts';

export type Fault = 'cpu' | 'wall' | 'request' | 'memory' | 'process-memory' | 'closed' | 'catastrophic';

/**
 * After one of an app's requests broke its CPU, time or memory limit, the app may have only one isolate
 * for this long, in milliseconds (each new breach starts it again): an app whose requests spin
 * then keeps at most one thread busy, not `maxIsolates`, and the other apps share the other cores.
 */
const PENALTY_MS = 10_000;
/** Faults that put an app in the penalty: its own code broke a limit. */
const PENALISED: ReadonlySet<Fault | undefined> = new Set(['cpu', 'wall', 'request', 'memory']);

/**
 * The wait before an app gets a new isolate after its isolates were replaced for faults of its own
 * `n` times in a row (no request completed in between), n ≥ 2: REPLACE_WAIT_MS × 2^(n-2), at most
 * REPLACE_WAIT_MAX_MS. Creating an isolate blocks the event loop for milliseconds, every app's
 * requests with it; an app whose every request breaks a limit would otherwise have one made per
 * request (8 a second filling 64 MiB heaps), and the other apps' p99 would be those stalls.
 */
const REPLACE_WAIT_MS = 100;
const REPLACE_WAIT_MAX_MS = 1_000;

/** Requests queued on one isolate at most; more wait for a place. */
const PIPELINE_DEPTH = 8;
/** A request running this long is probably spinning or waiting: new requests avoid its isolate, in milliseconds. */
const STUCK_MS = 5;

let nextHandlerId = 1;

/** Isolates of every app whose thread is running something (src/sandbox/memory-guard.ts). */
const busy = new Set<Slot>();

/** Isolates whose thread is running something now, disposed or not. */
export function busySlots(): Slot[] {
  return [...busy];
}

/** Whether any isolate's thread is running something now. */
export function anyBusy(): boolean {
  return busy.size > 0;
}

const firstBusyListeners = new Set<() => void>();

/**
 * `fn` is called whenever an isolate's thread starts running while no other was (src/sandbox/memory-guard.ts);
 * the function returned stops that.
 */
export function whenFirstBusy(fn: () => void): () => void {
  firstBusyListeners.add(fn);
  return () => firstBusyListeners.delete(fn);
}

/** The pools of every app of the process that are not closed. */
const pools = new Set<Pool>();

/** Disposes every idle isolate of every app (the memory guard's first resort); they are created again on demand. */
export function shedIdleIsolates(): number {
  let shed = 0;
  for (const pool of pools) shed += pool.shed();
  return shed;
}

/**
 * V8's code cache of each compiled handler, made by the first isolate that compiles it: the
 * isolates created later (the pool growing, a replaced one) start from it. By artifact, so that it
 * is dropped with it; V8 checks that a cache matches its source before using it.
 *
 * Kept as a plain ArrayBuffer, and copied into an ExternalCopy only for the compile that uses it,
 * which releases it at once: an ExternalCopy's accounting runs against isolated-vm's current
 * environment, and one that only the garbage collector releases may be collected while Node
 * tears the process down, after isolated-vm's environment is gone. A test process aborted there
 * twice (`IsolateEnvironment::GetCurrent` assertion, at the end of tenant-idle.test.ts, whose
 * released tenants leave their handlers' caches to the collector).
 */
const codeCaches = new WeakMap<object, ArrayBuffer>();

/** Work on an isolate's thread that is no request's (Slot.#queued). */
interface Work {
  readonly work: true;
}

/** One isolate with its locked-down context, the handlers installed in it and the requests queued on it. */
export class Slot {
  readonly isolate: ivm.Isolate;
  /** The app (tenant) the isolate belongs to, for the log. */
  readonly app: string;
  readonly api: GuestApi;
  readonly watchdog: Watchdog;
  /** Requests submitted to the isolate and not complete, by token. */
  readonly calls = new Map<number, Call>();
  /** Requests assigned to this isolate by the pool (acquired and not released). */
  reserved = 0;
  /**
   * Of those, the requests whose handler code has not finished running in the isolate (dispatch.ts
   * counts each down once); the others only wait for the host to finish them.
   */
  unran = 0;
  /** Why the isolate was disposed by the host. */
  fault: Fault | undefined;
  lastUsed = performance.now();
  readonly #context: ivm.Context;
  /** Handler file (relative) → the version installed and its id in the isolate. */
  readonly #installed = new Map<string, Promise<{ hash: string; id: number }>>();
  /** Ids of replaced handler versions, dropped once no request is assigned. */
  #stale: number[] = [];
  /** Runs submitted to the isolate's thread that have not come back, even if the isolate is disposed. */
  #busy = 0;
  /**
   * What was submitted to the isolate's thread, in order, and has not come back: requests' runs,
   * and the work of compiling a handler (which is no request's). The thread does them one at a
   * time in that order, a run to its end in one task (a handler's promise settles in the task's
   * microtasks or never), and their results reach the host in that order: so a run first in line
   * is running, and the next in line begins when it comes back. The host starts a request's
   * accounting then, without a message from the isolate (one thread hand-off less per request).
   */
  readonly #queued: (Call | Work)[] = [];
  /** Called when the last of them comes back. */
  onIdleThread: (() => void) | undefined;
  /** Rejecters of the runs under way: the host's disposal ends them at once. */
  readonly #abandon = new Set<(err: Error) => void>();

  private constructor(app: string, isolate: ivm.Isolate, context: ivm.Context, api: GuestApi, watchdog: Watchdog) {
    this.app = app;
    this.isolate = isolate;
    this.#context = context;
    this.api = api;
    this.watchdog = watchdog;
  }

  static async create(app: string, limits: Limits, onCatastrophicError: (message: string) => void): Promise<Slot> {
    const isolate = new ivm.Isolate({ memoryLimit: limits.memoryLimitMiB, onCatastrophicError });
    try {
      const context = await isolate.createContext();
      let slot: Slot | undefined;
      const api = await installRuntime(context, {
        app,
        lookup: (token) => slot?.calls.get(token),
      });
      const watchdog = new Watchdog(isolate, limits, (breach, call) => {
        call.breach = breach;
        slot?.dispose(breach);
      });
      slot = new Slot(app, isolate, context, api, watchdog);
      return slot;
    } catch (err) {
      if (!isolate.isDisposed) isolate.dispose();
      throw err;
    }
  }

  get disposed(): boolean {
    return this.isolate.isDisposed;
  }

  /**
   * The isolate's id of the artifact's code, installing it first when this isolate has an older
   * version or none. Requests already queued with an older version run it to their end.
   */
  async install(artifact: Extract<Artifact, { ok: true }>): Promise<number> {
    const rel = artifact.rel;
    for (;;) {
      const pending = this.#installed.get(rel);
      const had = pending && (await pending.catch(() => undefined));
      if (this.#installed.get(rel) !== pending) continue; // another request changed it meanwhile: look again
      if (had?.hash === artifact.hash) return had.id;
      const next = this.#compile(artifact);
      this.#installed.set(rel, next);
      try {
        const { id } = await next;
        if (had) this.#stale.push(had.id);
        return id;
      } catch (err) {
        if (this.#installed.get(rel) === next) this.#installed.delete(rel);
        throw err;
      }
    }
  }

  async #compile(artifact: Extract<Artifact, { ok: true }>): Promise<{ hash: string; id: number }> {
    const cached = codeCaches.get(artifact);
    const cachedData = cached ? new ivm.ExternalCopy(cached) : undefined;
    let script: ivm.Script;
    try {
      script = await this.#inLine(() =>
        this.isolate.compileScript(artifact.code, {
          filename: artifact.scriptName,
          ...(cachedData ? { cachedData } : { produceCachedData: true }),
        }),
      );
    } finally {
      cachedData?.release();
    }
    const produced = (script as ivm.Script & ivm.CachedDataResult).cachedData;
    if (produced) {
      if (!cached) codeCaches.set(artifact, produced.copy());
      produced.release();
    }
    try {
      // Evaluates the wrapping function expression only: no handler code runs here.
      const factory = (await this.#inLine(() => script.run(this.#context, { reference: true }))) as ivm.Reference;
      const id = nextHandlerId++;
      await this.#inLine(() => this.api.install.apply(undefined, [id, factory.derefInto({ release: true }), artifact.rel]));
      return { hash: artifact.hash, id };
    } finally {
      script.release();
    }
  }

  /**
   * Runs handler `id` for one request in the isolate: its result, or a rejection as soon as the
   * host disposes the isolate (a limit broken), without waiting for the thread to stop.
   */
  run(id: number, requestJson: string, call: Call): Promise<unknown> {
    if (this.#busy++ === 0) {
      busy.add(this);
      if (busy.size === 1) for (const fn of firstBusyListeners) fn();
    }
    const ran = this.#handOver(() => {
      call.handedOver = true;
      if (this.#queued[0] === call) this.#begin(call);
      return this.api.run.apply(undefined, [id, requestJson, call.token]);
    }, call.ex.res.batched);
    if (this.#queued.push(call) === 1) this.#begin(call);
    return new Promise((resolve, reject) => {
      this.#abandon.add(reject);
      ran.then(
        (value) => {
          this.#abandon.delete(reject);
          this.#ranOut(call);
          resolve(value);
        },
        (err: unknown) => {
          this.#abandon.delete(reject);
          this.#ranOut(call);
          reject(err);
        },
      );
    });
  }

  /**
   * Hands `submit` (work for the isolate's thread) over at the end of this turn of the event loop,
   * with the rest submitted to this isolate in the turn, in the order submitted (#queued's). A
   * submission wakes the isolate's thread when it sleeps, and a wake-up is dear (a futex wake, on
   * a VM an interrupt to another CPU): requests that arrive in one turn and go to one isolate wake
   * it once instead of each. A retrieve through an isolate on 32 connections: 1.13-1.17 times the
   * rate at 0.84 times the server's CPU per request (`AB_B_CHECKOUT=<checkout without it> node
   * bench/ab.ts '/resources/employees/{id}' 5 3 svc-delegate-isolate '' ''`). Unless `defer` (the
   * request's response is `batched`: a burst can form), it goes at once when nothing waits before it.
   */
  #handOver<T>(submit: () => Promise<T>, defer = true): Promise<T> {
    if (!defer && !this.#handOvers.pending) return submit();
    return new Promise<T>((resolve, reject) =>
      this.#handOvers.add(() => {
        try {
          resolve(submit());
        } catch (err) {
          // An isolate disposed meanwhile may refuse the submission at once: it fails as a run does.
          reject(err);
        }
      }),
    );
  }

  /** What #handOver holds until the end of the turn. */
  readonly #handOvers = new TurnBatch();

  /** `call` runs in the isolate from now on (it was first in line): its CPU and wall time count. */
  #begin(call: Call): void {
    // Not handed to the thread yet (#handOver): it begins then, if still first in line. Until then
    // it has not started, and if the isolate goes away meanwhile it never ran (dispatch.ts retries
    // it on another).
    if (!call.handedOver) return;
    // A disposed isolate runs nothing more: the run that came back was ended by the disposal
    // (V8's memory limit disposes it without the host), and the next in line never ran.
    if (this.isolate.isDisposed) return;
    call.started = true;
    this.watchdog.start(call);
  }

  /** The run of `call` came back: its accounting ends, and the next in line runs. */
  #ranOut(call: Call): void {
    this.watchdog.end(call);
    this.#cameBack(call);
    this.#threadBack();
  }

  /** Work of no request on the isolate's thread (`submit` hands it over): in line with the runs, and charged to none. */
  async #inLine<T>(submit: () => Promise<T>): Promise<T> {
    const work: Work = { work: true };
    this.#queued.push(work);
    try {
      return await this.#handOver(submit);
    } finally {
      this.#cameBack(work);
    }
  }

  /** `done` came back from the isolate's thread: when it was first in line, a run next in line begins. */
  #cameBack(done: Call | Work): void {
    const at = this.#queued.indexOf(done);
    if (at === -1) return;
    this.#queued.splice(at, 1);
    const next = this.#queued[0];
    if (at === 0 && next !== undefined && !('work' in next)) this.#begin(next);
  }

  #threadBack = (): void => {
    if (--this.#busy > 0) return;
    busy.delete(this);
    this.onIdleThread?.();
  };

  /** Whether the isolate's thread is still running something (disposed or not). */
  get threadBusy(): boolean {
    return this.#busy > 0;
  }

  /** `call` is complete (answered, failed or never run). */
  finished(call: Call): void {
    this.calls.delete(call.token);
    this.watchdog.end(call);
  }

  /** Drops replaced handler versions; only when no request is assigned, so none can still use one. */
  dropStale(): void {
    if (this.reserved > 0 || this.#stale.length === 0 || this.disposed) return;
    this.api.uninstall.applyIgnored(undefined, [JSON.stringify(this.#stale)]);
    this.#stale = [];
  }

  dispose(fault: Fault): void {
    this.fault ??= fault;
    this.watchdog.stop();
    for (const reject of this.#abandon) reject(new Error(`isolate disposed (${this.fault})`));
    this.#abandon.clear();
    if (!this.isolate.isDisposed) {
      try {
        this.isolate.dispose();
      } catch {
        // already going away
      }
      freedMemory();
    }
  }
}

/** The isolates of one app. */
export class Pool {
  readonly #app: string;
  readonly #limits: Limits;
  readonly #onCatastrophicError: (message: string) => void;
  readonly #slots: Slot[] = [];
  /** Disposed isolates whose thread is still busy: they count against maxIsolates until it is free. */
  readonly #draining = new Set<Slot>();
  readonly #waiters: { alone: boolean; resolve(s: Slot): void; reject(e: unknown): void }[] = [];
  #creating = 0;
  #closed = false;
  /** Until when (performance.now()) the app may have one isolate only; see PENALTY_MS. */
  #penaltyUntil = 0;
  /** Isolates replaced for the app's own faults since a request last completed; see REPLACE_WAIT_MS. */
  #faultsInARow = 0;
  /** No isolate is created before this (performance.now()). */
  #growAfter = 0;
  #growTimer: NodeJS.Timeout | undefined;
  #reaper: NodeJS.Timeout | undefined;

  constructor(app: string, limits: Limits, onCatastrophicError: (message: string) => void) {
    pools.add(this);
    this.#app = app;
    this.#limits = limits;
    this.#onCatastrophicError = onCatastrophicError;
  }

  get size(): number {
    return this.#slots.length + this.#creating + this.#draining.size;
  }

  /** Isolates the app may have now. */
  #cap(): number {
    return performance.now() < this.#penaltyUntil ? 1 : this.#limits.maxIsolates;
  }

  /**
   * An isolate to submit one request to; release() it when the request is complete. With
   * `alone`, only an isolate with nothing queued (for a request that already waited once).
   */
  acquire(alone = false): Promise<Slot> {
    if (this.#closed) return Promise.reject(new Error('the sandbox is closed'));
    const slot = this.#pick(alone);
    if (slot) {
      slot.reserved++;
      slot.unran++;
      return Promise.resolve(slot);
    }
    const waiting = new Promise<Slot>((resolve, reject) => this.#waiters.push({ alone, resolve, reject }));
    this.#grow();
    return waiting;
  }

  release(slot: Slot): void {
    slot.reserved--;
    slot.lastUsed = performance.now();
    if (slot.disposed || this.#closed) this.#remove(slot);
    else {
      this.#faultsInARow = 0;
      slot.dropStale();
    }
    this.#serveWaiters();
    this.#scheduleReap();
  }

  /**
   * An idle isolate; else one whose thread is idle (its requests ran, and the host is finishing
   * them: writing a delegate's result, say); else, while more may be created, none (the caller
   * waits for a new one); else the least loaded one with room in its queue, one whose request
   * has run for a while (spinning, or waiting for the host) last.
   */
  #pick(alone: boolean): Slot | undefined {
    let best: Slot | undefined;
    let bestScore = Infinity;
    let idleThread: Slot | undefined;
    const cap = this.#cap();
    // Threads still busy in disposed isolates count first: the app has `cap` threads in all.
    let threads = this.#draining.size;
    for (const s of this.#slots) {
      if (s.disposed) continue;
      // Only the first isolates up to the cap take requests (the rest, in the penalty, are reaped when idle).
      if (threads++ >= cap) break;
      if (s.reserved === 0) return s;
      if (s.reserved >= PIPELINE_DEPTH) continue;
      if (s.unran === 0 && !s.threadBusy) idleThread ??= s;
      const score = s.reserved + (s.watchdog.runningMs > STUCK_MS ? PIPELINE_DEPTH : 0);
      if (score < bestScore) {
        best = s;
        bestScore = score;
      }
    }
    if (idleThread) return idleThread;
    if (alone || this.size < cap) return undefined;
    return best;
  }

  /** Starts creating one more isolate, if the limit allows. */
  #grow(): void {
    if (this.size >= this.#cap() || this.#closed) return;
    const wait = this.#growAfter - performance.now();
    if (wait > 0) {
      this.#growTimer ??= setTimeout(() => {
        this.#growTimer = undefined;
        this.#serveWaiters();
      }, wait).unref();
      return;
    }
    this.#creating++;
    Slot.create(this.#app, this.#limits, this.#onCatastrophicError).then(
      (slot) => {
        this.#creating--;
        if (this.#closed) {
          slot.dispose('closed');
          return;
        }
        this.#slots.push(slot);
        this.#serveWaiters();
        this.#scheduleReap();
      },
      (err) => {
        this.#creating--;
        if (this.#slots.length === 0 && this.#creating === 0) for (const w of this.#waiters.splice(0)) w.reject(err);
      },
    );
  }

  #serveWaiters(): void {
    while (this.#waiters.length > 0) {
      const slot = this.#pick(this.#waiters[0]!.alone);
      if (!slot) break;
      slot.reserved++;
      slot.unran++;
      this.#waiters.shift()!.resolve(slot);
    }
    if (this.#waiters.length > this.#creating) this.#grow();
  }

  #remove(slot: Slot): void {
    // An isolate that held several requests is removed once per request; its fault counts once.
    const i = this.#slots.indexOf(slot);
    const first = i >= 0;
    if (first) this.#slots.splice(i, 1);
    if (!slot.disposed) slot.dispose('closed');
    if (first && PENALISED.has(slot.fault)) {
      this.#penaltyUntil = performance.now() + PENALTY_MS;
      if (++this.#faultsInARow >= 2) {
        this.#growAfter = performance.now() + Math.min(REPLACE_WAIT_MAX_MS, REPLACE_WAIT_MS * 2 ** (this.#faultsInARow - 2));
      }
      // Idle isolates beyond the one allowed go now; busy ones finish what they hold.
      this.shed(1);
    }
    if (slot.threadBusy && !this.#closed) {
      this.#draining.add(slot);
      slot.onIdleThread = () => {
        this.#draining.delete(slot);
        this.#serveWaiters();
      };
    }
  }

  #scheduleReap(): void {
    if (this.#reaper || this.#slots.length <= 1) return;
    this.#reaper = setTimeout(() => {
      this.#reaper = undefined;
      const now = performance.now();
      // Keep the most recently used one.
      const idle = this.#slots.filter((s) => s.reserved === 0).sort((a, b) => a.lastUsed - b.lastUsed);
      for (const s of idle) {
        if (this.#slots.length <= 1 || now - s.lastUsed < this.#limits.idleMs) break;
        this.#remove(s);
      }
      this.#scheduleReap();
    }, this.#limits.idleMs).unref();
  }

  /** Disposes the isolates that hold no request, but for the first `keep` of them; how many. */
  shed(keep = 0): number {
    const idle = this.#slots.filter((s) => s.reserved === 0 && !s.disposed).slice(keep);
    for (const s of idle) this.#remove(s);
    return idle.length;
  }

  /** Disposes every isolate; requests running in them fail. */
  close(fault: Fault = 'closed'): void {
    pools.delete(this);
    this.#closed = true;
    if (this.#reaper) clearTimeout(this.#reaper);
    if (this.#growTimer) clearTimeout(this.#growTimer);
    for (const slot of this.#slots) slot.dispose(fault);
    this.#slots.length = 0;
    for (const w of this.#waiters.splice(0)) w.reject(new Error('the sandbox is closed'));
  }
}
