// Date patterns and locale data: the `Intl` memory that outlives every isolate. V8 keeps a date-time pattern
// generator (35–75 KB of ICU data) for each locale, calendar, numbering system and hour cycle a
// DateTimeFormat (or a Date's toLocaleString) was made for, in one cache for the whole process,
// never emptied: neither a collection nor disposing the isolate frees it. Millions of such
// combinations exist (`de-u-ca-chinese-nu-thai-hc-h11`), so one tenant's handlers could grow the
// process without bound, until --max-rss restarted it for every tenant.
//
// So each combination is admitted here before V8 sees it (runtime/prelude.js computes its key from
// the arguments, the same key for the same combination, more keys than V8's where spellings
// differ): one already admitted in this process is free to every app; a new one counts against the
// app's share, and against the process's. Past either, the handler's call throws a RangeError.
// Called without a request (a handler's top-level code may make a formatter), so not an Op.
//
// Locale data likewise: an Intl.Locale's collations, hour cycles, numbering systems and week info
// open ICU's resource bundles for the locale as written, and ICU keeps an entry for every name it
// tried, found or not, for the life of the process (about 2 KB for a locale of a few variants;
// `de-DE-v0000001-…` is a new one each time). Their keys are 'locale ' and the Locale's base name
// (a date pattern's key is JSON, so never begins so), counted apart from date patterns.

/** New combinations the process admits in its lifetime: about 75 MB of ICU data at most. */
export const MAX_DATE_PATTERNS = 1000;
/** New combinations one app may add to them. */
export const MAX_DATE_PATTERNS_PER_APP = 100;
/** New locales whose data the process opens in its lifetime (a locale's base name is at most about 150 characters: a few MB at most). */
export const MAX_LOCALE_DATA = 1000;
/** New locales one app may add to them. */
export const MAX_LOCALE_DATA_PER_APP = 100;
/** The longest key (a list of locales, the options that choose a pattern) accepted. */
const MAX_KEY_CHARS = 2000;
const LOCALE_KEY = 'locale ';

interface Admission {
  readonly admitted: Set<string>;
  readonly addedBy: Map<string, number>;
  readonly max: number;
  readonly perApp: number;
  /** Why a new key is refused, for the app's share or the process's. */
  refusal(perApp: boolean): string;
}

const datePatterns: Admission = {
  admitted: new Set(),
  addedBy: new Map(),
  max: MAX_DATE_PATTERNS,
  perApp: MAX_DATE_PATTERNS_PER_APP,
  refusal: (perApp) =>
    `svc: date formats are limited to ${perApp ? `${MAX_DATE_PATTERNS_PER_APP} new combinations of locale, calendar, numbering system and hour cycle per app` : `${MAX_DATE_PATTERNS} combinations of locale, calendar, numbering system and hour cycle per server process`} (each holds memory until the server restarts); use fewer combinations`,
};

const localeData: Admission = {
  admitted: new Set(),
  addedBy: new Map(),
  max: MAX_LOCALE_DATA,
  perApp: MAX_LOCALE_DATA_PER_APP,
  refusal: (perApp) =>
    `svc: the collations, hour cycles, numbering systems and week info of Intl.Locale are limited to ${perApp ? `${MAX_LOCALE_DATA_PER_APP} new locales per app` : `${MAX_LOCALE_DATA} locales per server process`} (each holds memory until the server restarts); use fewer locales`,
};

/** '' when app may use the combination (or locale) `key` names (admitting it if new), else why not. */
export function admitIntl(app: string, key: unknown): string {
  if (typeof key !== 'string' || key.length > MAX_KEY_CHARS) return `svc: a date format of over ${MAX_KEY_CHARS} characters of locales and options; use fewer locales`;
  const kind = key.startsWith(LOCALE_KEY) ? localeData : datePatterns;
  if (kind.admitted.has(key)) return '';
  const added = kind.addedBy.get(app) ?? 0;
  if (added >= kind.perApp || kind.admitted.size >= kind.max) return kind.refusal(added >= kind.perApp);
  kind.admitted.add(key);
  kind.addedBy.set(app, added + 1);
  return '';
}
