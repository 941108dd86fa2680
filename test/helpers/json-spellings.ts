// Random JSON values and every way to write them (white space around every token, escapes of every
// kind in names and strings, number forms), for the property tests of the JSON readers: the host's
// (src/model/json-text.ts) and the isolate's (runtime/prelude.js).

import fc from 'fast-check';

export type J = null | boolean | number | string | J[] | { [k: string]: J };

const unit = fc.constantFrom('a', 'n', 'u', '\\', '"', '/', ':', ' ', '\n', '{', ']', ',', '\u0000', '\u001f', '\ud800', '\udc00', '\u2028', 'é', '€');
const str = fc.string({ unit, maxLength: 5 });
const key = fc.oneof(str, fc.constantFrom('__proto__', 'constructor', '', '0', '1', '4294967295', '-0', 'toString'));
const num = fc.oneof(fc.double({ noNaN: true }), fc.integer(), fc.constantFrom(-0, 2 ** 53 + 2, 0.1, 5e-324, 1.7976931348623157e308, -1e-7));

/** A JSON value: names with quotes, backslashes, control characters, lone surrogates, `__proto__`, index-like ones. */
export const jsonValue: fc.Arbitrary<J> = fc.letrec<{ v: J }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    num,
    str,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie('v')), { maxLength: 4 }).map((pairs) => {
      const o: Record<string, J> = {};
      // defineProperty: `__proto__` as an own key, as JSON.parse makes it.
      for (const [k, x] of pairs) Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
      return o;
    }),
  ),
})).v;

/** A random number in [0, 1) from `seed`, each call the next: the same seed, the same spelling. */
export function picker(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

const SPACE = [' ', '\t', '\n', '\r'];

/** `v` written as JSON, `pick` choosing each spelling: white space, escapes, number forms. */
export function writeJson(v: J, pick: () => number): string {
  const ws = () => (pick() < 0.5 ? '' : SPACE[Math.floor(pick() * 4)]!.repeat(1 + Math.floor(pick() * 2)));
  const u = (code: number, upper: boolean) => `\\u${(upper ? code.toString(16).toUpperCase() : code.toString(16)).padStart(4, '0')}`;
  const literal = (s: string) =>
    `"${s
      .split('')
      .map((c) => {
        const code = c.charCodeAt(0);
        const p = pick();
        if (c === '"') return p < 0.5 ? '\\"' : u(code, p < 0.75);
        if (c === '\\') return p < 0.5 ? '\\\\' : u(code, p < 0.75);
        if (c === '\n') return p < 0.5 ? '\\n' : u(code, false);
        if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff)) return u(code, p < 0.5);
        if (c === '/' && p < 0.5) return '\\/';
        return p < 0.2 ? u(code, p < 0.1) : c;
      })
      .join('')}"`;
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    if (Object.is(v, -0)) return '-0';
    if (!Number.isFinite(v)) return v > 0 ? (pick() < 0.5 ? '1e400' : '1E+400') : '-1e400';
    const text = JSON.stringify(v);
    return pick() < 0.3 ? text.replace('e', 'E') : text;
  }
  if (typeof v === 'string') return literal(v);
  if (Array.isArray(v)) return `[${ws()}${v.map((x) => `${ws()}${writeJson(x, pick)}${ws()}`).join(',')}${ws()}]`;
  return `{${ws()}${Object.keys(v)
    .map((k) => `${ws()}${literal(k)}${ws()}:${ws()}${writeJson(v[k]!, pick)}${ws()}`)
    .join(',')}${ws()}}`;
}

/** Whether some name in `text` (valid JSON) holds a backslash: a plain scan. */
export function escapedName(text: string): boolean {
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') {
      escaped = false;
      for (i++; text[i] !== '"'; i++) {
        if (text[i] === '\\') {
          escaped = true;
          i++;
        }
      }
    } else if (text[i] === ':' && escaped) return true;
  }
  return false;
}
