// Parsing values of each field type into their canonical form, from JSON or from text (query, Atom).

import type { FieldDef, FieldType, Value } from './types.ts';

export type Parsed = { ok: true; value: Value } | { ok: false; message: string };

const ok = (value: Value): Parsed => ({ ok: true, value });
const fail = (message: string): Parsed => ({ ok: false, message });

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// ISO 8601 / RFC 3339 date-time; an offset (or Z) is required so that the instant is unambiguous.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:\d{2})$/;
const INTEGER = /^[+-]?\d+$/;
// One way to match each text: `\d+\.?\d*` could split a run of digits between its two `\d`s in
// every way, and V8 tried each before refusing one that does not end as a number, 250 ms for
// 8,000 digits (a URL), minutes for the megabyte of an Atom body or a handler's query.
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * `record`'s own value named `name`: a field named like an Object.prototype member (`constructor`,
 * `toString`, `valueOf`) is absent when the record does not have it, not the inherited function.
 * Every reader of a member, a body or a stored document by field name reads through this: a model
 * may declare such fields, and a member without one must read as without it (rendered with no
 * `<dd>`, kept absent by an update, read from a MongoDB document as absent).
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/**
 * Whether `s` has more than `max` characters (Unicode code points, as `max_length` counts them),
 * counted no further than needed: a code point is one or two UTF-16 units, so only a text of
 * `max` to 2 × `max` units is counted at all. Counting the whole of a handler's 4 Mi-character
 * value held the event loop 30 ms a check.
 */
export function longerThan(s: string, max: number): boolean {
  if (s.length <= max) return false;
  if (s.length > 2 * max) return true;
  let n = 0;
  for (const _ of s) if (++n > max) return true;
  return false;
}

/** A date-time in the form parseDateTime gives (UTC, milliseconds, `Z`), as one. */
const CANONICAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/;

/** Whether `s` is a date-time parseDateTime returns unchanged: its canonical form, of a day that exists. */
function isCanonicalDateTime(s: string): boolean {
  const m = CANONICAL_DATE_TIME.exec(s);
  return m !== null && validDay(+m[1]!, +m[2]!, +m[3]!) && +m[4]! <= 23 && +m[5]! <= 59 && +m[6]! <= 59;
}

function validDay(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
}
function daysIn(y: number, m: number): number {
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

export function parseDate(s: string): Parsed {
  const m = DATE.exec(s);
  if (!m || !validDay(+m[1]!, +m[2]!, +m[3]!)) {
    return fail('must be a date YYYY-MM-DD');
  }
  return ok(s);
}

export function parseDateTime(s: string): Parsed {
  const m = DATE_TIME.exec(s);
  if (!m) return fail('must be an ISO 8601 date-time with an offset, e.g. 2024-05-01T12:00:00Z');
  const [, y, mo, d, h, mi, sec = '0', frac = '', zone] = m;
  if (!validDay(+y!, +mo!, +d!) || +h! > 23 || +mi! > 59 || +sec > 59) {
    return fail('must be an ISO 8601 date-time with an offset, e.g. 2024-05-01T12:00:00Z');
  }
  const ms = Number((frac + '000').slice(0, 3));
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999, and 29 February of
  // year 0 (a leap year) became 1 March on the way (1900 is not one).
  const date = new Date(0);
  date.setUTCFullYear(+y!, +mo! - 1, +d!);
  let t = date.setUTCHours(+h!, +mi!, +sec, ms);
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone![0] === '-' ? -1 : 1;
    const oh = +zone!.slice(1, 3), om = +zone!.slice(4, 6);
    if (oh > 23 || om > 59) return fail('has an invalid UTC offset');
    t -= sign * (oh * 60 + om) * 60_000;
  }
  const iso = new Date(t).toISOString();
  // Canonical form is a 4-digit year in UTC; instants outside 0000–9999 have no such form.
  if (iso.length !== 24) return fail('must fall between the years 0000 and 9999 in UTC');
  return ok(iso);
}

/** Whether a field of `type` holds text as it was sent (`string`, `text`): every other type's text is converted, its surrounding white space no part of it. */
export function holdsText(type: FieldType): boolean {
  return type === 'string' || type === 'text';
}

/** A JSON number as it is, or text in the shape `syntax` as a number; undefined otherwise. */
function toNumber(raw: unknown, text: boolean, syntax: RegExp): number | undefined {
  if (!text) return typeof raw === 'number' ? raw : undefined;
  return typeof raw === 'string' && syntax.test(raw.trim()) ? Number(raw.trim()) : undefined;
}

/**
 * Parses `raw` as a value of `field`. From JSON (`text` false) the JSON type must match;
 * from text (query strings, Atom) the text is converted.
 */
export function parseValue(field: FieldDef, raw: unknown, text: boolean): Parsed {
  // From text, the white space around a value of a non-text field (a pretty-printed Atom `dd`) is
  // no part of it, for booleans and dates as for numbers; a text field keeps all of its own.
  if (text && typeof raw === 'string' && !holdsText(field.type)) raw = raw.trim();
  switch (field.type) {
    case 'string':
    case 'text': {
      if (typeof raw !== 'string') return fail('must be a string');
      // A lone surrogate has no UTF-8 form: the store would keep U+FFFD instead of what was sent.
      if (!raw.isWellFormed()) return fail('must be well-formed Unicode (it holds a lone surrogate)');
      if (field.maxLength !== undefined && longerThan(raw, field.maxLength)) {
        return fail(`must be at most ${field.maxLength} characters long`);
      }
      return ok(raw);
    }
    case 'integer':
    case 'auto': {
      const n = toNumber(raw, text, INTEGER);
      if (n === undefined || !Number.isInteger(n)) return fail('must be an integer');
      if (!Number.isSafeInteger(n)) return fail('must be an integer between -(2^53-1) and 2^53-1');
      return ok(n === 0 ? 0 : n); // no -0
    }
    case 'float': {
      const n = toNumber(raw, text, FLOAT);
      if (n === undefined) return fail('must be a number');
      if (!Number.isFinite(n)) return fail('must be a finite number');
      return ok(n === 0 ? 0 : n);
    }
    case 'boolean': {
      if (text) {
        if (raw === 'true') return ok(true);
        if (raw === 'false') return ok(false);
        return fail('must be true or false');
      }
      if (typeof raw !== 'boolean') return fail('must be true or false');
      return ok(raw);
    }
    case 'date':
      if (typeof raw !== 'string') return fail('must be a date YYYY-MM-DD');
      return parseDate(raw);
    case 'date-time':
      if (typeof raw !== 'string') return fail('must be an ISO 8601 date-time string');
      return parseDateTime(raw);
  }
}

/**
 * A stored value as a value of its field's `type` now (the field's type may have changed since
 * the value was written), or undefined (absent) when it is none. Text that is a number (as a query
 * string writes one: `"0123"`, `" 1.5e2 "`) is that number, other text is no number; a number is
 * true unless 0, text unless empty; a number is its shortest text; a date or date-time is text a
 * write would accept, canonical (`dateAs`), and nothing else. An integer field rounds a
 * fraction to the nearest integer, halves away from zero (`1.5` is 2, `-2.5` is -3), and holds no
 * number past ±(2^53-1) (`1e20` is absent), as no write could store one.
 */
export function storedAs(type: FieldType, v: string | number | boolean): Value | undefined {
  switch (type) {
    case 'integer':
    case 'auto': {
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v + 0; // + 0: no -0
      const n = numberOf(v);
      if (n === undefined) return undefined;
      const rounded = Math.sign(n) * Math.round(Math.abs(n)) + 0; // + 0: no -0
      return Number.isSafeInteger(rounded) ? rounded : undefined;
    }
    case 'float':
      return numberOf(v);
    case 'boolean':
      return typeof v === 'number' ? v !== 0 : Boolean(v);
    case 'date':
    case 'date-time':
      return typeof v === 'string' ? dateAs(type, v) : undefined;
    default:
      return typeof v === 'string' ? v : String(v);
  }
}

/**
 * Text as a date or date-time value, as `storedAs` reads it: a date or date-time a write would
 * accept, in canonical form (a date-time in UTC with milliseconds and `Z`); a date-time's date is
 * its date in UTC, and a date's date-time is its midnight in UTC. Other text is none (undefined).
 */
function dateAs(type: 'date' | 'date-time', v: string): string | undefined {
  // What a write stored is canonical already: told so without building a Date (about 1 µs a value,
  // on every read of MongoDB and of SQLite rows read from their columns).
  if (type === 'date-time' && isCanonicalDateTime(v)) return v;
  const date = parseDate(v);
  if (type === 'date' && date.ok) return v;
  const instant = date.ok ? parseDateTime(`${v}T00:00:00Z`) : parseDateTime(v);
  if (!instant.ok) return undefined;
  return type === 'date' ? String(instant.value).slice(0, 10) : String(instant.value);
}

/**
 * Whether `value`, what a field's type change rewrote the stored `before` to, reads back as
 * `before` in `type`, the type `before` had (undefined: one no field type keeps): `12` made `"12"`
 * does; `"0123"` made 123, 5 made true, 1.5 made 2 and `"abc"` made absent do not. A member whose
 * value does not is another member, and both stores stamp it again (README "Models").
 */
export function readsBackAs(type: FieldType | undefined, value: Value | undefined, before: unknown): boolean {
  return type !== undefined && value !== undefined && value !== null && storedAs(type, value) === before;
}

/** A finite number of a stored value: itself, 1 or 0 for a boolean, or text that is a number; else undefined. */
function numberOf(v: string | number | boolean): number | undefined {
  const n = typeof v === 'string' ? toNumber(v, true, FLOAT) : Number(v);
  return n !== undefined && Number.isFinite(n) ? n + 0 : undefined;
}

/** The text of a canonical value, as queries, templates and XOXO write it. */
export function valueText(v: Value): string {
  if (v === null) return '';
  return String(v);
}
