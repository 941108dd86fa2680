// The nice value of a store thread whose work may wait (reader threads, the migration thread).

import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Gives the calling thread the nice value `nice` (0 is the event loop's): on a busy machine, its
 * work gets the CPU the requests that need little of it leave, instead of an equal share of a
 * core. On Linux a thread has its own nice value, set through its thread id; /proc/thread-self
 * names the calling thread (`<pid>/task/<tid>`). Elsewhere, or without /proc, the thread keeps the
 * process's priority. https://man7.org/linux/man-pages/man2/setpriority.2.html
 */
export function lowerThreadPriority(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // not Linux, or no /proc
  }
}
