// Attack: Intl objects that hold far more ICU memory than the runtime counted for them. The
// prelude collects the isolate's garbage every 4 MiB of estimated ICU memory (runtime/prelude.js),
// but it counted 10 KB for every DateTimeFormat (and toLocaleString call with options), where one
// holds 28 KB, 82 KB once formatRange has given it an interval format, and up to 384 KB (438 KB
// with formatRange) in the Hebrew, Chinese or Japanese calendar, whose patterns in some locales
// spell numbers with an algorithmic numbering system; and 3 KB for every DisplayNames, where one
// of date fields holds 39 KB. So 400 dropped Hebrew formatters held 150 MB outside the isolate's
// limit before its first collection, and 50 requests of a handler making them (with formatRange)
// as fast as its 100 ms of CPU allowed grew the process 513 MiB. The weights are now the measured
// ones (the calendar decides a formatter's), and formatRange counts its interval format once per
// formatter.

import t from 'tap';
import { trimNow } from '../../src/malloc-trim.ts';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const HANDLER = `
  export function onList() {
    const kind = zget('/request/params/kind');
    const n = Number(zget('/request/params/n'));
    const zones = Intl.supportedValuesOf('timeZone').slice(0, 64);
    let chars = 0;
    for (let i = 0; i < n; i++) {
      const at = i * 1e9;
      if (kind === 'hebrew') {
        chars += new Intl.DateTimeFormat('he-u-ca-hebrew', { dateStyle: 'full', timeStyle: 'full', timeZone: 'UTC' }).format(at).length;
      } else if (kind === 'hebrewMethod') {
        // The formatters the runtime keeps for these calls (64) all taken first: each call then makes its own.
        if (i === 0) for (let z = 0; z < 64; z++) new Date(0).toLocaleString('en', { timeZone: zones[z] });
        chars += new Date(at).toLocaleString('he', { calendar: 'hebrew', dateStyle: 'full', timeStyle: 'full', timeZone: 'UTC' }).length;
      } else if (kind === 'range') {
        chars += new Intl.DateTimeFormat('de', { timeZone: 'UTC' }).formatRange(at, at + 1e10).length;
      } else if (kind === 'fields') {
        chars += new Intl.DisplayNames('de', { type: 'dateTimeField' }).of('year').length;
      }
    }
    zput('/request/json/output', { chars });
    render();
  }
  export function onRetrieve() {
    const d = new Date(Date.UTC(2020, 0, 2, 3, 4, 5));
    const reads = [];
    const options = {};
    for (const k of ['calendar', 'timeZone', 'dateStyle']) {
      Object.defineProperty(options, k, {
        get() { reads.push(k); return ({ calendar: 'hebrew', timeZone: 'UTC', dateStyle: 'long' } as any)[k]; },
        enumerable: true,
      });
    }
    const hebrew = d.toLocaleString('en', options as Intl.DateTimeFormatOptions);
    const failure = (f: () => unknown) => { try { return f(); } catch (e) { return (e as Error).name + ': ' + (e as Error).message; } };
    zput('/request/json/output', {
      hebrew,
      reads: reads.sort(),
      inherited: d.toLocaleDateString('de', Object.create({ timeZone: 'Asia/Tokyo', month: 'long' })),
      locale: d.toLocaleDateString(new Intl.Locale('ja', { calendar: 'japanese' }) as any, { timeZone: 'UTC', era: 'long' }),
      list: d.toLocaleDateString(['xx-Qaaa', 'de-AT'], { timeZone: 'UTC' }),
      arrayLike: d.toLocaleDateString({ length: 1, 0: 'fr' } as any, { timeZone: 'UTC' }),
      upper: d.toLocaleDateString('en', { calendar: 'ISLAMIC', timeZone: 'UTC' }),
      badLocale: failure(() => d.toLocaleString('!!')),
      symbol: failure(() => d.toLocaleString('de', { calendar: Symbol() as any })),
      nullLocales: failure(() => d.toLocaleString(null as any)),
      range: new Intl.DateTimeFormat('de', { timeZone: 'UTC' }).formatRange(0, 1e9),
      rangeParts: new Intl.DateTimeFormat('de', { timeZone: 'UTC' }).formatRangeToParts(0, 1e9).length,
      rangeLengths: [Intl.DateTimeFormat.prototype.formatRange.length, Intl.DateTimeFormat.prototype.formatRangeToParts.length],
      fields: new Intl.DisplayNames('de', { type: 'dateTimeField' }).of('year'),
      called: (Intl.DateTimeFormat as any)('de', { timeZone: 'UTC' }).format(0),
    });
    render();
  }`;

async function server() {
  return sandboxServer(
    { models: { probe: PEOPLE }, resources: { 'probe.ts': HANDLER } },
    { limits: { cpuLimitMs: 5000, wallLimitMs: 20_000 } },
  );
}

t.test('Intl answers as before', async (t) => {
  const s = await server();
  t.teardown(() => s.close());
  t.same(await body(await fetch(s.at('/resources/probe/1'))), {
    hebrew: '5 Tevet 5780',
    reads: ['calendar', 'dateStyle', 'timeZone'],
    inherited: 'Januar',
    locale: '令和2/1/2',
    list: '2.1.2020',
    arrayLike: '02/01/2020',
    upper: '5/7/1441 AH',
    badLocale: 'RangeError: Incorrect locale information provided',
    symbol: 'TypeError: Cannot convert a Symbol value to a string',
    nullLocales: 'TypeError: Cannot convert undefined or null to object',
    range: '01.–12.01.1970',
    rangeParts: 7,
    rangeLengths: [2, 2],
    fields: 'Jahr',
    called: '1.1.1970',
  });
});

// Each kind in a server of its own (an isolate of its own), three requests of n, measured from a
// trimmed C heap (so that memory an earlier test's isolates freed is not reused unseen); the bound
// is ample for 4 MiB of garbage and the allocator's slack, and far under what each left before.
const KINDS: [kind: string, n: number, boundMiB: number, what: string][] = [
  ['hebrew', 120, 30, 'Hebrew-calendar formatters (about 135 MiB before)'],
  ['hebrewMethod', 120, 30, 'Hebrew-calendar toLocaleString calls (about 130 MiB before)'],
  ['range', 130, 20, 'formatters with formatRange (about 32 MiB before)'],
  ['fields', 430, 25, 'DisplayNames of date fields (about 50 MiB before)'],
];
for (const [kind, n, boundMiB, what] of KINDS) {
  t.test(`dropped ${what} do not pile up`, async (t) => {
    const s = await server();
    t.teardown(() => s.close());
    await body(await fetch(s.at(`/resources/probe?kind=${kind}&n=1`))); // ICU's data, loaded once, is not the growth
    await trimNow();
    const before = process.memoryUsage.rss();
    for (let i = 0; i < 3; i++) {
      const res = await fetch(s.at(`/resources/probe?kind=${kind}&n=${n}`));
      t.equal(res.status, 200, `request ${i + 1}`);
      await res.arrayBuffer();
    }
    const grewMiB = (process.memoryUsage.rss() - before) / 1024 / 1024;
    t.ok(grewMiB < boundMiB, `the process grew ${grewMiB.toFixed(0)} MiB (under ${boundMiB} MiB)`);
  });
}
