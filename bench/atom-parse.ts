// Atom entry reading alone, without HTTP: this tree's readAtomEntry beside the one of a git revision.
//
//   node bench/atom-parse.ts [revision=HEAD] [rounds=7]
//
// The revision's src/ is extracted with `git archive` into a temporary directory and imported from
// there, so both readers run in one process on the same bodies. Rounds alternate old and new; each
// measures a fixed amount of work per body. Prints µs per body (median over rounds) and new ÷ old.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAtomEntry } from '../src/representation/atom-read.ts';
import { median } from './report.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const revision = process.argv[2] ?? 'HEAD';
const rounds = Number(process.argv[3] ?? 7);

function entry(fields: readonly (readonly [string, string])[]): string {
  const dl = fields.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('');
  return `<?xml version="1.0" encoding="utf-8"?>
<entry xmlns="http://www.w3.org/2005/Atom"><title>Employee 3</title><link href="http://h/resources/employees/3?format_as=atom"/><link rel="edit" href="http://h/resources/employees/3"/><id>http://h/resources/employees/3</id><updated>2024-05-06T07:08:09.123Z</updated><author><name>Author of employees 3</name></author><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><ol class="xoxo"><li name="employees"><dl>${dl}</dl></li></ol></div></content></entry>`;
}

const BODIES: Record<string, string> = {
  // What a client sends for one member: nine short fields.
  'typical entry (9 fields)': entry([
    ['id', '3'], ['updated', '2024-05-06T07:08:09.123Z'], ['name', 'Ann Smith'], ['notes', 'first line &amp; second'],
    ['age', '42'], ['score', '2.5'], ['active', 'false'], ['birthday', '1982-02-03'], ['hired', '2020-01-02T03:04:05.000Z'],
  ]),
  // One long text field: ~100 KiB of text with a reference every 100 characters.
  'one 100 KiB text field': entry([['name', 'x'], ['notes', `${'lorem ipsum dolor sit amet '.repeat(3)}&lt;p&gt; `.repeat(1200)]]),
  // Many fields: 500 short pairs.
  '500 fields': entry(Array.from({ length: 500 }, (_, i) => [`f${i}`, `value ${i}`] as const)),
};

function measure(read: (body: string) => unknown, body: string, n: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) read(body);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

function run(oldRead: (body: string) => unknown): void {
  console.log(`Atom entry reading, ${revision} (old) vs this tree (new), ${rounds} rounds, node ${process.version}`);
  console.log('| body | bytes | old µs | new µs | new ÷ old |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [name, body] of Object.entries(BODIES)) {
    const same = JSON.stringify({ ...(oldRead(body) as object) }) === JSON.stringify({ ...readAtomEntry(body) });
    if (!same) throw new Error(`${name}: the two readers disagree`);
    // About 0.3 s of work per reader per round, from a first estimate.
    const n = Math.max(10, Math.round(300_000 / Math.max(measure(oldRead, body, 20), measure(readAtomEntry, body, 20))));
    // One unmeasured round each, so that both are optimised before the first measured one.
    measure(oldRead, body, n);
    measure(readAtomEntry, body, n);
    const olds: number[] = [];
    const news: number[] = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        olds.push(measure(oldRead, body, n));
        news.push(measure(readAtomEntry, body, n));
      } else {
        news.push(measure(readAtomEntry, body, n));
        olds.push(measure(oldRead, body, n));
      }
    }
    const o = median(olds);
    const w = median(news);
    console.log(`| ${name} | ${Buffer.byteLength(body)} | ${o.toFixed(1)} | ${w.toFixed(1)} | ${(w / o).toFixed(2)} |`);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-atom-'));
try {
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${revision}" src | tar -x -C "${dir}"`]);
  const old = (await import(join(dir, 'src/representation/atom-read.ts'))) as { readAtomEntry: (body: string) => Record<string, string> };
  run(old.readAtomEntry);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
