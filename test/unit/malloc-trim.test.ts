// The C heap is trimmed after isolates are released (src/malloc-trim.ts): disposed isolates leave
// free pages inside glibc's heaps that only malloc_trim gives back to the system.

import t from 'tap';
import ivm from 'isolated-vm';
import { Logger } from '../../src/exchange/log.ts';
import { freedMemory, onTrimmed, trimNow } from '../../src/malloc-trim.ts';
import { guardMemory } from '../../src/sandbox/memory-guard.ts';

const glibc = typeof (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime === 'string';
if (!glibc) {
  console.log('skipped: malloc-trim (this C library is not glibc: there is no malloc_trim to call)');
  t.pass('not glibc');
} else {
  const MiB = 1024 * 1024;

  t.test('releases in a burst are trimmed once, and trims are at least 5 s apart', async (t) => {
    const at: number[] = [];
    let next: () => void = () => {};
    onTrimmed(() => {
      at.push(performance.now());
      next();
    });
    const trim = () => new Promise<void>((resolve) => (next = resolve));
    // The trim's timer does not keep a process alive; this test does, for as long as it waits.
    const hold = setInterval(() => {}, 1_000);
    t.teardown(() => {
      clearInterval(hold);
      onTrimmed(undefined);
    });
    let due = trim();
    for (let i = 0; i < 50; i++) freedMemory();
    await due;
    due = trim();
    freedMemory();
    await due;
    // Had the burst made more than one trim, the second would have come milliseconds after the first.
    t.equal(at.length, 2);
    t.ok(at[1]! - at[0]! >= 4_900, `${Math.round(at[1]! - at[0]!)} ms apart`);
  });

  t.test('a process over --max-rss trims the C heap at once', async (t) => {
    let trimmed: () => void = () => {};
    const seen = new Promise<void>((resolve) => (trimmed = resolve));
    onTrimmed(() => trimmed());
    // Over the bound from the first sample; the grace is far beyond the test, so it never ends anything.
    const guard = guardMemory({ maxRssMiB: 1, rss: () => 2 * MiB, graceMs: 600_000, log: new Logger(() => {}), endProcess: () => t.fail('ended the process') });
    t.teardown(() => {
      guard.stop();
      onTrimmed(undefined);
    });
    const hold = setTimeout(() => {}, 20_000);
    await seen;
    clearTimeout(hold);
    t.pass('trimmed');
  });

  t.test('after 20 isolates are disposed, a trim gives megabytes back to the system', async (t) => {
    const isolates: ivm.Isolate[] = [];
    for (let i = 0; i < 20; i++) {
      const isolate = new ivm.Isolate({ memoryLimit: 32 });
      const context = await isolate.createContext();
      // Objects, strings and optimised code: what a handler's isolate holds.
      await context.eval("const a = []; for (let i = 0; i < 20000; i++) a.push({ i, s: 'x' + i }); function f(x) { return x * 2 } for (let i = 0; i < 1e5; i++) f(i); a.length");
      isolates.push(isolate);
    }
    for (const isolate of isolates) isolate.dispose();
    const trimmed = await trimNow();
    t.ok(trimmed, 'malloc_trim is called');
    // Measured: 14 MiB of 168 (20 isolates), 23 of 261 (40); without the trim the resident memory stays.
    t.ok(trimmed!.rssBefore - trimmed!.rssAfter >= 4 * MiB, `resident ${(trimmed!.rssBefore / MiB).toFixed(1)} → ${(trimmed!.rssAfter / MiB).toFixed(1)} MiB`);
    t.ok(trimmed!.ms < 1000, `${trimmed!.ms.toFixed(1)} ms, off the event loop`);
  });
}
