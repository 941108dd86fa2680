// `node --no-node-snapshot --expose-gc bench/isolate-churn.ts [isolates=200] [cycles=3]`: where the
// memory of disposed isolates goes. Each cycle creates `isolates` isolates (a context, a script
// that allocates), disposes them all, waits for V8 to unmap their pages, and prints the resident
// memory and the part of it that is the C heap's main arena ([heap] in /proc/self/smaps). What is
// left in [heap] with no isolate alive is memory glibc keeps after free (fragmentation): idle
// tenants' isolates leave it behind (bench/tenants-idle.ts). For finding where memory goes, not for
// figures; with GLIBC_TUNABLES=... in the environment it compares allocator settings.

import ivm from 'isolated-vm';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const ISOLATES = Number(process.argv[2] ?? 200);
const CYCLES = Number(process.argv[3] ?? 3);
/** V8 unmaps a disposed isolate's pages in the background, over seconds. */
const UNMAP_WAIT_MS = 20_000;

const mb = (kb: number) => (kb / 1024).toFixed(1);

/** Resident memory in kB: all of it, and the main arena's [heap] mapping. */
function resident(): { rss: number; heap: number } {
  let heap = 0;
  let inHeap = false;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inHeap = line.endsWith('[heap]');
    else if (inHeap && line.startsWith('Rss:')) heap += Number(line.split(/\s+/)[1]);
  }
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
  return { rss, heap };
}

const gc = (globalThis as { gc?: () => void }).gc;
const start = resident();
console.log(`start: RSS ${mb(start.rss)} MB, [heap] ${mb(start.heap)} MB${process.env.GLIBC_TUNABLES ? ` (GLIBC_TUNABLES=${process.env.GLIBC_TUNABLES})` : ''}`);
for (let cycle = 1; cycle <= CYCLES; cycle++) {
  const isolates: ivm.Isolate[] = [];
  for (let i = 0; i < ISOLATES; i++) {
    const isolate = new ivm.Isolate({ memoryLimit: 64 });
    const context = await isolate.createContext();
    const script = await isolate.compileScript('const a = []; for (let i = 0; i < 10000; i++) a.push({ i }); a.length');
    await script.run(context);
    isolates.push(isolate);
  }
  const peak = resident();
  for (const isolate of isolates) isolate.dispose();
  isolates.length = 0;
  gc?.();
  await sleep(UNMAP_WAIT_MS);
  const after = resident();
  console.log(`cycle ${cycle}: ${ISOLATES} isolates RSS ${mb(peak.rss)} MB; all disposed, ${UNMAP_WAIT_MS / 1000} s later: RSS ${mb(after.rss)} MB, [heap] ${mb(after.heap)} MB`);
}
