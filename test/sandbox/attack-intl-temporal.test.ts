// Attack: Temporal's way into the astronomical calendars. Node 24 has Temporal only with V8's
// --harmony-temporal, which an operator may give (in NODE_OPTIONS), and which reaches every isolate:
// a Temporal date's toLocaleString, and a DateTimeFormat given one, format in the Islamic, Chinese,
// Korean and Hebrew calendars without the runtime's check of the years (attack-intl-calendar-years),
// and ICU keeps what it computed for them for the life of the process (17 MiB per 20,000 years of
// Temporal.Instant's toLocaleString in islamic, a date a month, measured). Neither Temporal nor a
// Date's way to it (toTemporalInstant) is available to handlers.

import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import ivm from 'isolated-vm';
import { body, PEOPLE, sandboxServer } from './harness.ts';

// For every isolate made after it, in this process (this file's only).
setFlagsFromString('--harmony-temporal');

const PROBE = `[typeof globalThis.Temporal, typeof Date.prototype.toTemporalInstant]`;

const s = await sandboxServer({
  models: { probe: PEOPLE },
  resources: { 'probe.ts': `export function onList() { zput('/request/json/output', ${PROBE}); render(); }` },
});
t.teardown(() => s.close());

t.test('with --harmony-temporal, V8 has Temporal, and it formats far dates in the Islamic calendar', async (t) => {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  t.teardown(() => isolate.dispose());
  const context = await isolate.createContext();
  t.same(JSON.parse((await context.eval(`JSON.stringify(${PROBE})`)) as string), ['object', 'function']);
  const far = (await context.eval(`new Date(8.64e15).toTemporalInstant().toLocaleString('en-u-ca-islamic', { timeZone: 'UTC' })`)) as string;
  t.match(far, /283583 AH/);
});

t.test('handlers have neither Temporal nor toTemporalInstant', async (t) => {
  t.same(await body(await fetch(s.at('/resources/probe'))), ['undefined', 'undefined']);
});
