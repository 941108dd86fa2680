// Gives the C heap's free pages back to the system (glibc's malloc_trim) after isolates or stores are released.
//
// Creating and disposing isolates leaves the process's C heap fragmented: V8's compiler zones and
// an isolate's native structures are malloc'd between allocations that live on, and glibc returns
// free memory to the system only from the top of a heap (and for blocks of 128 KiB and more, which
// are mapped on their own). After 200 isolates were created and disposed, the main arena held
// ~141 MB of which 3 MB were in use (bench/isolate-churn.ts; malloc_stats); malloc_trim(0) releases
// the free pages inside the heaps too (madvise), and took that process from 198 to 67 MB of
// resident memory. Lowering the mapping threshold instead (GLIBC_TUNABLES mmap_threshold=32768)
// made durable creates 0.58× as fast, so the trim is done when memory was freed, not per allocation.
//
// Node has no binding for malloc_trim: it is called through koffi (a foreign function interface
// whose prebuilt addon ships in its registry packages; nothing is compiled at install). Where the
// C library is not glibc (musl, macOS, Windows), or koffi cannot load, there is nothing to call and
// freedMemory() does nothing.

/** How long after the first release the trim runs, in milliseconds: disposed isolates finish tearing down on their own threads first. */
const DELAY_MS = 1_000;
/** The shortest time between two trims, in milliseconds: a process that replaces isolates all the time trims at most this often. */
const MIN_GAP_MS = 5_000;

export interface Trimmed {
  /** Resident memory before and after the trim, in bytes. */
  readonly rssBefore: number;
  readonly rssAfter: number;
  /** How long malloc_trim ran (on a thread of its own), in milliseconds. */
  readonly ms: number;
}

type TrimFn = { async(pad: number, done: (err: unknown, released: number) => void): void };

/** malloc_trim, once loaded; null where it cannot be called. */
let trimFn: TrimFn | null | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
let lastTrim = -Infinity;
let listener: ((t: Trimmed) => void) | undefined;

/** malloc_trim from glibc's libc.so.6; null where there is none (no such library, or no such function in it). */
async function load(): Promise<TrimFn | null> {
  if (trimFn !== undefined) return trimFn;
  try {
    if (process.platform !== 'linux') return (trimFn = null);
    const { default: koffi } = await import('koffi');
    trimFn = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as unknown as TrimFn;
  } catch {
    trimFn = null;
  }
  return trimFn;
}

/** Called with each trim's effect (start-up wires the log to it). */
export function onTrimmed(fn: ((t: Trimmed) => void) | undefined): void {
  listener = fn;
}

/**
 * Trims the C heap now, off the event loop; resolves with the effect, or undefined where there is
 * no malloc_trim.
 */
export async function trimNow(): Promise<Trimmed | undefined> {
  const fn = await load();
  if (!fn) return undefined;
  const rssBefore = process.memoryUsage.rss();
  const started = (lastTrim = performance.now());
  await new Promise<void>((resolve) => fn.async(0, () => resolve()));
  const trimmed = { rssBefore, rssAfter: process.memoryUsage.rss(), ms: performance.now() - started };
  listener?.(trimmed);
  return trimmed;
}

/**
 * Much memory was just freed (isolates disposed, an app's store closed): trims the C heap soon.
 * Calls that come while a trim is due add nothing; trims are at least MIN_GAP_MS apart.
 */
export function freedMemory(): void {
  if (timer !== undefined || trimFn === null) return;
  const wait = Math.max(DELAY_MS, lastTrim + MIN_GAP_MS - performance.now());
  timer = setTimeout(() => {
    timer = undefined;
    void trimNow();
  }, wait);
  // A trim never keeps the process alive.
  timer.unref();
}
