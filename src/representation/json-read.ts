// Reading a JSON member body (README "The default handler"): one object, nested at most 100 deep, each name once.

import { SvcError } from '../errors.ts';

/**
 * Deepest nesting of arrays and objects accepted in a body (the body object is level 1). A member
 * is an object of scalar fields; handlers hold values of at most 100 levels (README, Limits), and
 * copying a deeper one into an isolate overflows its stack.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * The fields of a JSON member body. Throws SvcError `invalid-json` when the body is empty, nested
 * deeper than MAX_JSON_DEPTH, not JSON, not an object, or names a field twice.
 */
export function readJsonMember(text: string): Record<string, unknown> {
  // A byte order mark may precede JSON text; parsers may ignore it (RFC 8259 §8.1).
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') invalid('The body is empty: send a JSON object of member fields.');
  const outline = outlineOf(body, MAX_JSON_DEPTH);
  if (outline === undefined) invalid(`The body is nested deeper than ${MAX_JSON_DEPTH} levels: send a JSON object of member fields.`);
  let value: unknown;
  try {
    // JSON.parse defines `__proto__` as a plain own key, never as the prototype; the validator
    // then rejects it as an unknown field. It also says where the text is wrong.
    value = JSON.parse(body);
  } catch (e) {
    invalid(`The body is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid('The body must be a JSON object of member fields.');
  if (outline.escapedName) value = readValid(body);
  // JSON.parse keeps the last of two values of a name and drops the other without a word (RFC
  // 8259 §4 leaves duplicate names to the reader), so `{"n":"x","n":5}` would pass as n = 5.
  // invalid-json, not invalid-member: which value was meant cannot be known, whatever the model or
  // handler, as a duplicate <dt> is invalid-atom.
  if (outline.members > Object.keys(value as object).length) {
    // Always found when the counts differ; the fallback only keeps a surprise from being a 500.
    const name = repeatedName(body);
    invalid(`${name === undefined ? 'A field' : `The field "${shown(name)}"`} appears more than once in the JSON object: send each field once.`);
  }
  return value as Record<string, unknown>;
}

function invalid(message: string): never {
  throw new SvcError('invalid-json', message);
}

/** A client-sent name for an error message, cut short: the message must not echo a whole body. */
function shown(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}

interface Outline {
  /** Colons at depth 1. In a body that parses as an object, one per member: more than it has keys means a name repeats. */
  readonly members: number;
  /** True when some object name, at any depth, holds an escape (see readValid). */
  readonly escapedName: boolean;
}

/**
 * What the body's text says before it is parsed, in one pass with no allocation: undefined when
 * arrays and objects nest deeper than `max` (outside strings). Meaningful for text JSON.parse
 * accepts; other text is JSON.parse's to report.
 */
function outlineOf(text: string, max: number): Outline | undefined {
  let depth = 0;
  let members = 0;
  let escapedName = false;
  let lastEscaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included.
      lastEscaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) {
          i++;
          lastEscaped = true;
        } else if (d === 0x22) break;
      }
    } else if (c === 0x3a) {
      // A colon follows an object's name: the string just skipped.
      if (depth === 1) members++;
      if (lastEscaped) escapedName = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return undefined;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return { members, escapedName };
}

/** The index of the quote that closes the string opened at `open`, escapes skipped. */
function stringEnd(text: string, open: number): number {
  let i = open + 1;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === 0x22) break;
    i += d === 0x5c ? 2 : 1;
  }
  return i;
}

/** The value of the string literal at text[open..end] (quotes included). */
function stringAt(text: string, open: number, end: number): string {
  const literal = text.slice(open, end + 1);
  // A lone string is no object: JSON.parse reads it right (see readValid).
  return literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}

/**
 * The first name of the body object (text JSON.parse accepted) that repeats an earlier one,
 * compared after unescaping: `"n"` and `"\u006e"` are the same name. Only on the error path; one pass.
 */
function repeatedName(text: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  let last = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (depth === 1) last = stringAt(text, i, end);
      i = end;
    } else if (c === 0x3a && depth === 1) {
      if (seen.has(last)) return last;
      seen.add(last);
    } else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/**
 * Reads text that JSON.parse has accepted, building the objects itself, for a body with an escaped
 * name. V8 13.6 (Node 24) and later can read such a name wrong: once any earlier parse in the
 * process (any request, any tenant) made an object whose names were the same up to one ending in
 * a backslash, `{"a":1,"\\":2}`, an escaped name in that place reads as that one: `{"a":1,"\u006e":2}`
 * gives the name "\" instead of "n", and two different names can collapse into one
 * (https://github.com/nodejs/node/issues/63785, https://issues.chromium.org/issues/521080746).
 * Names without an escape are read right, so the common body stays on JSON.parse. Escaped strings
 * are still decoded by JSON.parse, one literal at a time (a lone string builds no object). Recursion
 * is bounded by MAX_JSON_DEPTH, checked before; about three times JSON.parse's time.
 */
function readValid(text: string): unknown {
  let i = 0;
  const skipSpace = (): void => {
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++i));
  };
  const string = (): string => {
    const end = stringEnd(text, i);
    const s = stringAt(text, i, end);
    i = end + 1;
    return s;
  };
  const value = (): unknown => {
    skipSpace();
    const c = text.charCodeAt(i);
    if (c === 0x22) return string();
    if (c === 0x7b) {
      const object: Record<string, unknown> = {};
      for (i++, skipSpace(); text.charCodeAt(i) !== 0x7d; skipSpace()) {
        if (text.charCodeAt(i) === 0x2c) {
          i++;
          skipSpace();
        }
        const name = string();
        skipSpace();
        i++; // the colon
        // As JSON.parse: `__proto__` is a plain own key, never the prototype; a repeated name
        // keeps its first place and takes the last value.
        if (name === '__proto__') Object.defineProperty(object, name, { value: value(), writable: true, enumerable: true, configurable: true });
        else object[name] = value();
      }
      i++;
      return object;
    }
    if (c === 0x5b) {
      const items: unknown[] = [];
      for (i++, skipSpace(); text.charCodeAt(i) !== 0x5d; skipSpace()) {
        if (text.charCodeAt(i) === 0x2c) i++;
        items.push(value());
      }
      i++;
      return items;
    }
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      // true, false or null: JSON.parse has checked the spelling.
      i += c === 0x66 ? 5 : 4;
      return c === 0x74 ? true : c === 0x66 ? false : null;
    }
    // A number, up to the next delimiter: Number() reads JSON's number syntax to the same double.
    const start = i;
    for (let d = c; i < text.length && d !== 0x2c && d !== 0x5d && d !== 0x7d && d !== 0x20 && d !== 0x0a && d !== 0x0d && d !== 0x09; d = text.charCodeAt(++i));
    return Number(text.slice(start, i));
  };
  return value();
}
