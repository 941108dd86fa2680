// Reading JSON text that came from outside the process, the one way every reader does it: nesting
// bounded, repeated names found, and V8's misreading of escaped names (nodejs/node#63785) read around.
// It lives in model/ because model files are its first user and model/ is the lowest part that
// request bodies (representation/), app settings (tenancy/) and handler payloads (sandbox/) can import.
// Handler isolates cannot import it: runtime/prelude.js has its own copy of hasEscapedName and
// readValid, which test/sandbox/prelude-json-reader.test.ts holds to the same answers as these.

/** Why readJson refused a text. `at` is a character index into the text, a byte order mark left out. */
export type JsonFault =
  /** Not JSON. `message` is JSON.parse's, which quotes the text around `at`: say it only to whoever wrote the text. */
  | { readonly kind: 'syntax'; readonly message: string; readonly at?: number }
  /** Arrays and objects nested deeper than `max` levels (the outermost value is level 1). */
  | { readonly kind: 'depth'; readonly max: number }
  /**
   * An object names `name` twice (compared after unescaping: `"n"` and `"\u006e"` are one name).
   * `path` leads from the outermost value to that object: names of objects, indexes of arrays.
   * `name` is undefined only if the repeat could not be found again, which should not happen.
   */
  | { readonly kind: 'repeated-name'; readonly path: readonly (string | number)[]; readonly name?: string; readonly at?: number };

export class JsonTextError extends Error {
  readonly fault: JsonFault;
  constructor(fault: JsonFault) {
    super(fault.kind === 'syntax' ? fault.message : fault.kind === 'depth' ? `nested deeper than ${fault.max} levels` : `a name appears more than once`);
    this.fault = fault;
  }
}

export interface ReadJsonOptions {
  /** Deepest nesting of arrays and objects accepted, the outermost value being level 1; deeper text is refused before it is parsed. */
  readonly maxDepth: number;
  /**
   * Where a name may not appear twice: in the outermost object only (a body's fields), in every
   * object (a file), or nowhere checked (JSON.parse's rule: the last value wins, in the first's place).
   * JSON.parse drops the other value without a word; RFC 8259 §4 leaves duplicate names to the reader.
   */
  readonly uniqueNames: 'top-level' | 'everywhere' | 'unchecked';
}

/**
 * The value of JSON `text`, read right on every Node version. Throws JsonTextError when the text is
 * nested deeper than `maxDepth`, is not JSON, or repeats a name where `uniqueNames` says it may not.
 * A byte order mark before the text is ignored (RFC 8259 §8.1 lets a parser do so).
 */
export function readJson(text: string, options: ReadJsonOptions): unknown {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const outline = outlineOf(json, options.maxDepth, options.uniqueNames === 'everywhere');
  if (outline === undefined) throw new JsonTextError({ kind: 'depth', max: options.maxDepth });
  let value: unknown;
  try {
    // JSON.parse defines `__proto__` as a plain own key, never as the prototype. It also says where the text is wrong.
    value = JSON.parse(json);
  } catch (e) {
    const message = (e as Error).message;
    const at = /position (\d+)/.exec(message)?.[1];
    throw new JsonTextError({ kind: 'syntax', message, ...(at === undefined ? {} : { at: Number(at) }) });
  }
  if (outline.escapedName) value = readValid(json);
  if (options.uniqueNames !== 'unchecked' && outline.names > namesIn(value, options.uniqueNames === 'everywhere')) {
    // Always found when the counts differ; the fallback only keeps a surprise from being a 500.
    throw new JsonTextError({ kind: 'repeated-name', path: [], ...repeatedName(json, options.uniqueNames === 'everywhere') });
  }
  return value;
}

/**
 * True when an object name in JSON `text` holds an escape: the text V8 may misread, which readJson
 * reads around (see readValid). For a caller on a hot path that has its own bounds and wants
 * JSON.parse when it can: a native search for a backslash, then a look at the strings that hold
 * one, where readJson scans every character. Meaningful for text JSON.parse accepts.
 */
export function hasEscapedName(text: string): boolean {
  for (let i = text.indexOf('\\'); i !== -1; i = text.indexOf('\\', i)) {
    // In JSON a backslash is in a string, and the first after the strings looked at opens an
    // escape. The string ends at the next quote after an even run of backslashes (none included).
    let end = text.indexOf('"', i);
    while (end !== -1 && backslashesBefore(text, end) % 2 === 1) end = text.indexOf('"', end + 1);
    if (end === -1) return false;
    i = end + 1;
    while (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x0a || text.charCodeAt(i) === 0x0d || text.charCodeAt(i) === 0x09) i++;
    // A string followed by a colon is a name.
    if (text.charCodeAt(i) === 0x3a) return true;
  }
  return false;
}

/** How many backslashes stand right before `at`. */
function backslashesBefore(text: string, at: number): number {
  let n = 0;
  while (text.charCodeAt(at - n - 1) === 0x5c) n++;
  return n;
}

interface Outline {
  /**
   * Colons in objects at level 1 (or at every level, when asked). In text that parses, one per
   * member of those objects: more than they have keys means a name repeats.
   */
  readonly names: number;
  /** True when some object name, at any depth, holds an escape (see readValid). */
  readonly escapedName: boolean;
}

/**
 * What the text says before it is parsed, in one pass with no allocation: undefined when arrays
 * and objects nest deeper than `max` (outside strings). Meaningful for text JSON.parse accepts;
 * other text is JSON.parse's to report.
 */
function outlineOf(text: string, max: number, everywhere: boolean): Outline | undefined {
  let depth = 0;
  let names = 0;
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
      if (depth === 1 || everywhere) names++;
      if (lastEscaped) escapedName = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return undefined;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return { names, escapedName };
}

/** Keys of the outermost object, or of every object in `value`. */
function namesIn(value: unknown, everywhere: boolean): number {
  if (!everywhere) return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).length : 0;
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    const items = Array.isArray(v) ? v : Object.values(v);
    if (!Array.isArray(v)) n += items.length;
    for (const item of items) if (item !== null && typeof item === 'object') stack.push(item);
  }
  return n;
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
 * The first name that repeats an earlier one of its object (of the outermost object only, unless
 * `everywhere`), in text JSON.parse accepted, with the path to its object and where it is. Only on
 * the error path; one pass.
 */
function repeatedName(text: string, everywhere: boolean): { path: (string | number)[]; name: string; at: number } | undefined {
  // One frame per open array or object: an object's names so far and the one whose value is being
  // read, or an array's index. The path is the frames' `key`s, but the innermost's.
  const frames: { readonly names?: Set<string>; key: string | number }[] = [];
  let last = '';
  let lastAt = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const top = frames.at(-1);
    const checked = top?.names !== undefined && (everywhere || frames.length === 1);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (checked) {
        last = stringAt(text, i, end);
        lastAt = i;
      }
      i = end;
    } else if (c === 0x3a && checked) {
      if (top!.names!.has(last)) return { path: frames.slice(0, -1).map((f) => f.key), name: last, at: lastAt };
      top!.names!.add(last);
      top!.key = last;
    } else if (c === 0x2c && top !== undefined && top.names === undefined) (top.key as number)++;
    else if (c === 0x7b) frames.push({ names: new Set(), key: '' });
    else if (c === 0x5b) frames.push({ key: 0 });
    else if (c === 0x5d || c === 0x7d) frames.pop();
  }
  return undefined;
}

/**
 * Reads text that JSON.parse has accepted, building the objects itself, for text with an escaped
 * name. V8 13.6 (Node 24) and later can read such a name wrong: once any earlier parse in the
 * process (any request, any tenant, any handler's runtime call) made an object whose names were the
 * same up to one ending in a backslash, `{"a":1,"\\":2}`, an escaped name in that place reads as
 * that one: `{"a":1,"\u006e":2}` gives the name "\" instead of "n", and two different names can
 * collapse into one (https://github.com/nodejs/node/issues/63785,
 * https://issues.chromium.org/issues/521080746). Names without an escape are read right, so
 * common text stays on JSON.parse. Escaped strings are still decoded by JSON.parse, one literal at a
 * time (a lone string builds no object). Recursion is bounded by the caller's maxDepth, checked
 * before; about three times JSON.parse's time.
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
