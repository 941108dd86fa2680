// The hard memory bound of the process that runs isolates (`--max-rss`).
//
// An isolate's `memoryLimit` is soft (isolated-vm's own documentation): V8 checks it between
// allocations, so one large allocation (a 240 MB array filled in one call, a 500 MB string
// flattened) passes it before the isolate is stopped, and the thread of a disposed isolate may go
// on allocating inside a long native call. The process's anonymous resident memory (its heaps,
// V8's and the C library's, and thread stacks: what only it holds, and the kernel cannot take back
// without swap) is what the machine feels, so it is what this guard bounds. Pages of mapped files
// (Node's own code, shared libraries) do not count: they are the kernel's file cache, shared and
// reclaimable, and no handler can grow them. Sampled every SAMPLE_MS while an isolate's thread
// runs or the process is over the bound, else every IDLE_SAMPLE_MS (an idle server is not woken
// 40 times a second for nothing; the first isolate thread to start brings the fast pace back at
// once). Over the bound
//   1. every idle isolate of every app is disposed (no request is affected; an app gets a new one
//      on its next request), so that a process over the bound because it serves many apps at once
//      sheds what it can, and an isolate that holds memory outside its heap between requests (ICU
//      copies of Intl objects, which its limit does not count, up to 4 MiB of dropped ones:
//      runtime/prelude.js) gives it back; and the C heap is
//      trimmed at once (malloc-trim.ts), since free memory the C library kept counts in the
//      resident size too. When there was none to dispose (or at the next sample, if the process
//      is still over), every isolate whose thread is running handler code is disposed (only
//      running code can allocate): those requests are 503 `handler-memory-limit`. Idle isolates
//      go first, so that one app's idle isolate holding the memory does not cost another app's
//      running request;
//   2. if the process is still over the bound GRACE_MS later (a thread that does not stop, memory
//      the host holds), the process ends gracefully (`endProcess`: SIGTERM to itself, in-flight
//      requests finish) and its supervisor starts another: the primary of `--workers`, or the
//      container's restart policy.

import { openSync, readSync } from 'node:fs';
import type { Logger } from '../exchange/log.ts';
import { trimNow } from '../malloc-trim.ts';
import { anyBusy, busySlots, shedIdleIsolates, whenFirstBusy } from './isolate-pool.ts';

/** How often resident memory is read while handler code may be allocating, in milliseconds (a read costs microseconds). */
const SAMPLE_MS = 25;
/** How often it is read while no isolate's thread runs and the process is within the bound. */
const IDLE_SAMPLE_MS = 1000;

export interface MemoryGuardOptions {
  /** The bound, in MiB of anonymous resident memory. */
  readonly maxRssMiB: number;
  readonly log: Logger;
  /** How long the process may stay over the bound after its running isolates were disposed, in milliseconds. Default 3000. */
  readonly graceMs?: number;
  /** Resident memory now, in bytes. Default: the process's anonymous resident memory (`anonymousRss`). */
  readonly rss?: () => number;
  /** Ends the process when it stays over the bound. */
  readonly endProcess: () => void;
}

export interface MemoryGuard {
  stop(): void;
}

export function guardMemory(opts: MemoryGuardOptions): MemoryGuard {
  const bound = opts.maxRssMiB * 1024 * 1024;
  const graceMs = opts.graceMs ?? 3000;
  const rss = opts.rss ?? anonymousRss;
  /** When the process was first seen over the bound in the current breach. */
  let overSince: number | undefined;
  let ended = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** Whether the pending sample is the fast one. */
  let fast = false;
  const schedule = (ms: number): void => {
    clearTimeout(timer);
    fast = ms === SAMPLE_MS;
    timer = setTimeout(sample, ms);
    // A sample never keeps the process alive.
    timer.unref();
  };
  const sample = (): void => {
    check();
    // check() may have ended the process, whose shutdown stops the guard.
    if (!stopped) schedule(anyBusy() || overSince !== undefined ? SAMPLE_MS : IDLE_SAMPLE_MS);
  };
  const check = (): void => {
    const now = rss();
    if (now <= bound) {
      overSince = undefined;
      return;
    }
    const mib = Math.round(now / 1024 / 1024);
    const shed = shedIdleIsolates();
    if (shed > 0) opts.log.warn(`memory: the process holds ${mib} MiB, over --max-rss ${opts.maxRssMiB} MiB: disposed ${shed} idle isolates`);
    // Running requests are stopped only when no idle isolate was left to give memory back; the
    // next sample (SAMPLE_MS) sees what the disposal gave.
    const running = shed > 0 ? [] : busySlots().filter((s) => !s.disposed);
    if (running.length > 0) {
      const apps = [...new Set(running.map((s) => s.app))].map((a) => `"${a}"`).join(', ');
      opts.log.error(`memory: the process holds ${mib} MiB, over --max-rss ${opts.maxRssMiB} MiB: stopping the ${running.length} handler requests running (apps ${apps})`);
      for (const s of running) s.dispose('process-memory');
    }
    if (overSince === undefined) {
      overSince = performance.now();
      // Part of what the process holds may be free memory the C library kept (malloc-trim.ts).
      void trimNow();
    }
    if (!ended && performance.now() - overSince >= graceMs) {
      ended = true;
      opts.log.error(`FATAL: memory: the process still holds ${mib} MiB, over --max-rss ${opts.maxRssMiB} MiB, ${graceMs} ms after stopping its handlers; ending it so that it is restarted`);
      opts.endProcess();
    }
  };
  const unlisten = whenFirstBusy(() => {
    if (!fast) schedule(SAMPLE_MS);
  });
  schedule(anyBusy() ? SAMPLE_MS : IDLE_SAMPLE_MS);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      unlisten();
    },
  };
}

/**
 * The process's anonymous resident memory in bytes: resident less shared (file and shared-memory)
 * pages of /proc/self/statm, as `RssAnon` of /proc/self/status. The file stays open and is read
 * from its start each time (the kernel writes it anew): one system call, 45 µs on a loaded server
 * where reading the file by name took 125 µs (and process.memoryUsage.rss() 55). Where there is
 * no statm, the whole resident size.
 */
export function anonymousRss(): number {
  if (statm === null) return process.memoryUsage.rss();
  try {
    statm ??= { fd: openSync('/proc/self/statm', 'r'), buffer: Buffer.alloc(256) };
    const n = readSync(statm.fd, statm.buffer, 0, statm.buffer.length, 0);
    const [, resident, shared] = statm.buffer.toString('latin1', 0, n).split(' ').map(Number);
    if (Number.isFinite(resident) && Number.isFinite(shared)) {
      // statm counts pages; Node's rss() is the same resident count in bytes, so their ratio is the page size.
      pageSize ??= 2 ** Math.round(Math.log2(process.memoryUsage.rss() / resident!));
      return (resident! - shared!) * pageSize;
    }
  } catch {
    statm ??= null; // no /proc here: not tried again
  }
  return process.memoryUsage.rss();
}
/** The open statm file; null where there is none. */
let statm: { readonly fd: number; readonly buffer: Buffer } | null | undefined;
let pageSize: number | undefined;
