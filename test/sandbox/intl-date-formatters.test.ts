// A Date's toLocaleString, toLocaleDateString and toLocaleTimeString with options make a formatter
// each call in V8 (about 50 µs and 28 KB of ICU memory); the runtime keeps the ones it made, by
// method, locales and options, 64 during a request (runtime/prelude.js). What a handler gets must be
// what V8's own method gives, for every locale, option and date: the answers of a handler are
// compared with those of a bare isolate (no prelude) in this process, errors by their name.

import t from 'tap';
import ivm from 'isolated-vm';
import { body, PEOPLE, sandboxServer } from './harness.ts';

// 2.5e14 is in the year 9892: in the Islamic and Hebrew calendars, later dates are refused (attack-intl-calendar-years).
const DATES = [0, 1.7e12, -1e13, Number.NaN, 2.5e14, 1.5e12 + 0.123];
const LOCALES: unknown[] = [undefined, 'en-US', 'de', 'ar-SA', 'he-u-ca-hebrew', ['ja-JP-u-ca-japanese', 'en'], 'zh-Hant-u-nu-hanidec'];
const OPTIONS: unknown[] = [
  // The same text, other types: hour12 false, and 'false', which is true (a non-empty string).
  { hour12: false, hour: 'numeric', timeZone: 'UTC' },
  { hour12: 'false', hour: 'numeric', timeZone: 'UTC' },
  {},
  { timeZone: 'UTC' },
  { timeZone: 'Asia/Kolkata', hour: 'numeric', minute: '2-digit' },
  { dateStyle: 'full', timeZone: 'UTC' },
  { timeStyle: 'short', timeZone: 'UTC' },
  { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'America/New_York' },
  { weekday: 'long', timeZone: 'UTC' },
  { year: '2-digit', month: 'short', timeZone: 'UTC' },
  { hour12: true, timeZone: 'UTC' },
  { hour12: 1, hour: 'numeric', timeZone: 'UTC' },
  { hourCycle: 'h23', minute: '2-digit', timeZone: 'UTC' },
  { second: 'numeric', fractionalSecondDigits: 2, timeZone: 'UTC' },
  { fractionalSecondDigits: '3', timeZone: 'UTC' },
  { timeZoneName: 'short', timeZone: 'Europe/Berlin' },
  { era: 'long', timeZone: 'UTC' },
  { dayPeriod: 'short', hour: 'numeric', timeZone: 'UTC' },
  { calendar: 'islamic', timeZone: 'UTC' },
  { numberingSystem: 'arab', timeZone: 'UTC' },
  { timeZone: 'Nowhere/Special' },
  { month: 'long', hour: 'numeric', timeZone: 'UTC' },
  { hour: null },
];
const METHODS = ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString'];

/** Statements leaving every case's answer in \`out\`, each key's dates together (a formatter is made once, then reused). */
const PROGRAM = (cases: string) => `
  const out = [];
  for (const [method, locales, options] of ${cases}) {
    for (const date of ${JSON.stringify(DATES)}.map((d) => (d === null ? NaN : d))) {
      try {
        out.push(new Date(date)[method](locales === null ? undefined : locales, options));
      } catch (e) {
        out.push('throws ' + e.name);
      }
    }
  }
`;

async function bare(cases: string): Promise<unknown[]> {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  try {
    const context = await isolate.createContext();
    return JSON.parse((await context.eval(`${PROGRAM(cases)}; JSON.stringify(out);`)) as string);
  } finally {
    isolate.dispose();
  }
}

// Each method in a server of its own; in one request each key is served by a kept formatter (up to
// 64 in a request) and, for the keys past them, by the method's own way: both compared.
for (const method of METHODS) {
  t.test(`${method}: what V8's own method answers, for ${LOCALES.length * OPTIONS.length} locales and options and ${DATES.length} dates each`, async (t) => {
    const cases = JSON.stringify(LOCALES.flatMap((l) => OPTIONS.map((o) => [method, l ?? null, o])));
    const s = await sandboxServer(
      { models: { probe: PEOPLE }, resources: { 'probe.ts': `export function onList() { ${PROGRAM(cases)}; zput('/request/json/output', out); render(); }` } },
      { limits: { cpuLimitMs: 5000, wallLimitMs: 20_000 } },
    );
    t.teardown(() => s.close());
    const expected = await bare(cases);
    for (let round = 1; round <= 2; round++) {
      const got = (await body(await fetch(s.at('/resources/probe')))) as unknown[];
      t.equal(got.length, expected.length, `round ${round}: every case answered`);
      const differ = got.map((v, i) => [i, v, expected[i]] as const).filter(([, v, e]) => v !== e);
      t.same(differ.slice(0, 5), [], `round ${round}: the same answers`);
    }
    t.ok(expected.some((v) => typeof v === 'string' && v.startsWith('throws')), 'errors are among the cases');
  });
}
