// Attack: memory outside the isolate's limit, through Intl. Every Intl object holds ICU data
// outside the V8 heap (about 10 KB a DateTimeFormat), which V8 undercounts, so a small heap is
// rarely collected: a handler that made a DateTimeFormat per value, or called toLocaleString with
// options (one each call), left about 100 MB per 10,000 in the server process, over requests,
// whatever its isolate's limit. The runtime counts what it makes and collects the isolate's
// garbage every 4 MiB of it (runtime/prelude.js); V8's gc, which that needs, is not the handler's.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { probe: PEOPLE },
    resources: {
      'probe.ts': `
        export function onList() {
          const n = Number(zget('/request/params/n'));
          const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'UTC'];
          const someZones = Intl.supportedValuesOf('timeZone').slice(0, 20);
          const cycles = ['h11', 'h12', 'h23', 'h24'];
          let chars = 0;
          for (let i = 0; i < n; i++) {
            const zone = zones[i % zones.length];
            chars += new Intl.DateTimeFormat('de', { timeZone: zone }).format(i * 1e9).length;
            // 80 combinations of options: more than the formatters the runtime keeps for these calls.
            chars += new Date(i * 1e9).toLocaleString('fr', { timeZone: someZones[i % 20], hourCycle: cycles[Math.floor(i / 20) % 4] }).length;
          }
          zput('/request/json/output', { chars });
          render();
        }
        export function onRetrieve() {
          const intl = Intl as any;
          class Money extends Intl.NumberFormat {
            constructor() { super('en', { style: 'currency', currency: 'EUR' }); }
          }
          zput('/request/json/output', {
            gc: typeof (globalThis as any).gc,
            dateTime: new Date(0).toLocaleString('de-DE', { timeZone: 'UTC' }),
            date: new Date(0).toLocaleDateString('en-US', { timeZone: 'UTC' }),
            time: new Date(0).toLocaleTimeString('en-GB', { timeZone: 'UTC' }),
            number: (1234.5).toLocaleString('de'),
            bigint: 12345n.toLocaleString('en'),
            compare: 'ä'.localeCompare('z', 'de'),
            array: [1000, 2000].toLocaleString('de'),
            callable: Intl.DateTimeFormat('en', { timeZone: 'UTC' }).format(0),
            subclass: new Money().format(3),
            subclassOf: new Money() instanceof Intl.NumberFormat,
            sameConstructor: Object.getPrototypeOf(new Intl.Collator('de')).constructor === Intl.Collator
              && new Intl.DateTimeFormat().constructor === Intl.DateTimeFormat,
            maximize: new Intl.Locale('de').maximize().toString(),
            lengths: [Date.prototype.toLocaleString.length, String.prototype.localeCompare.length],
            supported: Intl.DateTimeFormat.supportedLocalesOf(['de']),
          });
          render();
        }`,
    },
  },
  { limits: { cpuLimitMs: 5000, wallLimitMs: 20_000 } },
);
t.teardown(() => s.close());

t.test('V8 gc is not the handler’s, and Intl answers as before', async (t) => {
  const out = await body(await fetch(s.at('/resources/probe/1')));
  t.same(out, {
    gc: 'undefined',
    dateTime: '1.1.1970, 00:00:00',
    date: '1/1/1970',
    time: '00:00:00',
    number: '1.234,5',
    bigint: '12,345',
    compare: -1,
    array: '1.000,2.000',
    callable: '1/1/1970',
    subclass: '€3.00',
    subclassOf: true,
    sameConstructor: true,
    maximize: 'de-Latn-DE',
    lengths: [0, 1],
    supported: ['de'],
  });
});

t.test('Intl objects a handler drops do not pile up in the process', async (t) => {
  // 10 requests of 2,000 formatters and 2,000 toLocaleString calls with options: about 250 MB of
  // ICU memory left in the process without the collections, under 40 MB with them.
  const n = 2000;
  await body(await fetch(s.at(`/resources/probe?n=${n}`))); // ICU's data, loaded once, is not the growth
  const before = process.memoryUsage.rss();
  for (let i = 0; i < 10; i++) {
    const res = await fetch(s.at(`/resources/probe?n=${n}`));
    t.equal(res.status, 200, `request ${i + 1}`);
    await res.arrayBuffer();
  }
  const grewMiB = (process.memoryUsage.rss() - before) / 1024 / 1024;
  t.ok(grewMiB < 80, `the process grew ${grewMiB.toFixed(0)} MiB (under 80 MiB)`);
});
