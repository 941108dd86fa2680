// Date patterns: the one `Intl` memory that outlives every isolate. V8 keeps a date-time pattern
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

/** New combinations the process admits in its lifetime: about 75 MB of ICU data at most. */
export const MAX_DATE_PATTERNS = 1000;
/** New combinations one app may add to them. */
export const MAX_DATE_PATTERNS_PER_APP = 100;
/** The longest key (a list of locales, the options that choose a pattern) accepted. */
const MAX_KEY_CHARS = 2000;

const admitted = new Set<string>();
const addedBy = new Map<string, number>();

/** '' when app may use the combination `key` names (admitting it if new), else why not. */
export function admitDatePattern(app: string, key: unknown): string {
  if (typeof key !== 'string' || key.length > MAX_KEY_CHARS) return `svc: a date format of over ${MAX_KEY_CHARS} characters of locales and options; use fewer locales`;
  if (admitted.has(key)) return '';
  const added = addedBy.get(app) ?? 0;
  if (added >= MAX_DATE_PATTERNS_PER_APP || admitted.size >= MAX_DATE_PATTERNS) {
    return `svc: date formats are limited to ${added >= MAX_DATE_PATTERNS_PER_APP ? `${MAX_DATE_PATTERNS_PER_APP} new combinations of locale, calendar, numbering system and hour cycle per app` : `${MAX_DATE_PATTERNS} combinations of locale, calendar, numbering system and hour cycle per server process`} (each holds memory until the server restarts); use fewer combinations`;
  }
  admitted.add(key);
  addedBy.set(app, added + 1);
  return '';
}
