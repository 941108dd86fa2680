// Attack: memory no isolate owns, through Intl.Locale. Its collations, hour cycles, numbering
// systems and week info (getCollations() … getWeekInfo(), and the older getters collations …
// weekInfo) open ICU's resource bundles for the locale as written, not for a locale V8 resolved
// among the ones it has: ICU keeps an entry for every name it tried (de_DE_V1_A1, then
// de_DE_V1, …), found or not, in one cache for the whole process that nothing empties. A locale
// with new variant subtags each call (`de-DE-v0000001-a000001-…`) left about 2 KB a call: 50
// requests of 1,000 grew the process 105 MiB (numbering systems), 122 MiB (collations), 110 MiB
// (week info), 75 MiB (hour cycles, which passed the 100 ms CPU limit even so), without end. Each
// new locale (its base name: the keywords open nothing) is now admitted by the host first, as date
// patterns are (src/sandbox/ops/intl.ts): at most 100 new ones per app, 1,000 per process; one
// already admitted is free to every app; past that, a RangeError. The Locale's other methods open
// no such data and are not counted.

import t from 'tap';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_LOCALE_DATA_PER_APP } from '../../src/sandbox/ops/intl.ts';
import { getWithHost } from '../helpers/raw-http.ts';
import { makeApp, startServer } from '../helpers/server.ts';

const HANDLER = `
  export function onList() {
    const from = Number(zget('/request/params/from'));
    const n = Number(zget('/request/params/n'));
    const how = zget('/request/params/how');
    let made = 0;
    let error = null;
    const answers = [];
    if (how === 'receiver') {
      for (const m of ['getCollations', 'getHourCycles', 'getNumberingSystems', 'getWeekInfo']) {
        try { Intl.Locale.prototype[m].call({}); } catch (e) { answers.push(e.name + ': ' + e.message); }
      }
    }
    for (let i = from; i < from + n; i++) {
      const v = 'v' + i.toString(36).padStart(7, '0');
      const tag = 'de-DE-' + v + '-' + ['a', 'b', 'c'].map((c) => c + v.slice(1)).join('-');
      // Keywords do not make another locale: the same base name each time.
      const locale = new Intl.Locale(tag + '-u-nu-' + ['latn', 'arab', 'thai'][i % 3]);
      try {
        const methods = how === 'all' ? ['getCollations', 'getHourCycles', 'getNumberingSystems', 'getWeekInfo'] : [how];
        for (const m of methods) answers.push(JSON.stringify(m.startsWith('get') ? locale[m]() : locale[m]));
        made++;
      } catch (e) {
        error = { name: e.name, message: e.message };
        break;
      }
    }
    zput('/request/json/output', { made, error, answers: answers.slice(0, 4) });
    render();
  }`;

const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
const apps = ['a', 'b'].map(() => makeApp({ models: { probe: { fields: { name: { type: 'string' } } } }, resources: { 'probe.ts': HANDLER } }));
for (const [i, name] of ['a', 'b'].entries()) cpSync(apps[i]!.dir, join(tenants, name), { recursive: true });
const server = await startServer({ tenantsDir: tenants, limits: { cpuLimitMs: 5000, wallLimitMs: 20_000 } });
t.teardown(async () => {
  await server.close();
  for (const app of apps) app.cleanup();
  rmSync(tenants, { recursive: true, force: true });
});

interface Made {
  made: number;
  error: { name: string; message: string } | null;
  answers: string[];
}

async function make(tenant: string, from: number, n: number, how: string): Promise<Made> {
  const res = await getWithHost(server.port, `${tenant}.localhost`, `/resources/probe?from=${from}&n=${n}&how=${how}`);
  t.equal(res.status, 200, `${tenant}: ${res.text.slice(0, 200)}`);
  return JSON.parse(res.text);
}

t.test("an app opens the data of at most its share of new locales; then a RangeError that says why", async (t) => {
  const first = await make('a', 0, 40, 'all');
  t.same([first.made, first.error], [40, null], 'within the share: each of the four methods, one locale counted once');
  t.same(JSON.parse(first.answers[2]!), ['latn'], 'the answers are V8’s (a -u-nu- keyword is the numbering system)');
  const second = await make('a', 40, 100, 'numberingSystems');
  t.equal(second.made, MAX_LOCALE_DATA_PER_APP - 40, 'the getters count against the same share');
  t.equal(second.error?.name, 'RangeError');
  t.match(second.error?.message, /limited to 100 new locales per app/);
  for (const how of ['getCollations', 'getHourCycles', 'getWeekInfo', 'collations', 'hourCycles', 'weekInfo']) {
    t.equal((await make('a', 1000, 1, how)).error?.name, 'RangeError', `${how}: a new locale is refused`);
  }
  t.same((await make('a', 0, 60, 'all')).error, null, 'locales it opened already cost nothing more, in a later request');
  for (const how of ['getCalendars', 'getTimeZones', 'getTextInfo', 'maximize', 'calendars', 'textInfo']) {
    t.same((await make('a', 5000, 20, how)).error, null, `${how}: opens no locale's data, is not counted`);
  }
});

t.test("another app is not refused for the first app's locales, and has a share of its own", async (t) => {
  t.same((await make('b', 0, 60, 'all')).error, null, "the first app's locales are free to it");
  const own = await make('b', 2000, 150, 'getNumberingSystems');
  t.equal(own.made, MAX_LOCALE_DATA_PER_APP, 'a share of its own');
  t.equal(own.error?.name, 'RangeError');
});

t.test('not a Locale: the method’s own TypeError', async (t) => {
  const out = await make('b', 0, 0, 'receiver');
  const methods = ['getCollations', 'getHourCycles', 'getNumberingSystems', 'getWeekInfo'];
  t.equal(out.answers.length, methods.length);
  for (const [i, m] of methods.entries()) t.match(out.answers[i], `TypeError: Method Intl.Locale.prototype.${m} called on incompatible receiver`);
});
