// readJson (src/model/json-text.ts) gives the value the text means, the same as JSON.parse would
// without V8's escaped-name bug, for every way valid JSON may be written: white space around every
// token (and a byte order mark before it), numbers as -0, 1E+2, 1e400 (Infinity) and the extremes of
// a double, escapes of every kind in names and strings (\/, \u005C in either case, lone surrogates,
// \u0000), `__proto__` and index-like names kept as own keys in their order, under every rule for
// repeated names (none repeats here). Expectations are the generated values, never JSON.parse's.
// Also: hasEscapedName agrees with a plain scan on these texts. No defect found; this guards them.

import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import { hasEscapedName, readJson } from '../../src/model/json-text.ts';

/** Random runs; more with SVC_PROPERTY_RUNS. */
const RUNS = Number(process.env.SVC_PROPERTY_RUNS ?? 2000);
const SEED = process.env.SVC_PROPERTY_SEED ? { seed: Number(process.env.SVC_PROPERTY_SEED) } : {};

type J = null | boolean | number | string | J[] | { [k: string]: J };

const unit = fc.constantFrom('a', 'n', 'u', '\\', '"', '/', ':', ' ', '\n', '{', ']', ',', '\u0000', '\u001f', '\ud800', '\udc00', '\u2028', 'é', '€');
const str = fc.string({ unit, maxLength: 5 });
const key = fc.oneof(str, fc.constantFrom('__proto__', 'constructor', '', '0', '1', '4294967295', '-0', 'toString'));
const num = fc.oneof(fc.double({ noNaN: true }), fc.integer(), fc.constantFrom(-0, 2 ** 53 + 2, 0.1, 5e-324, 1.7976931348623157e308, -1e-7));
const json: fc.Arbitrary<J> = fc.letrec<{ v: J }>((tie) => ({
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

const SPACE = [' ', '\t', '\n', '\r'];

/** `v` written as JSON, `pick` choosing each spelling: white space, escapes, number forms. */
function write(v: J, pick: () => number): string {
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
  if (Array.isArray(v)) return `[${ws()}${v.map((x) => `${ws()}${write(x, pick)}${ws()}`).join(',')}${ws()}]`;
  return `{${ws()}${Object.keys(v)
    .map((k) => `${ws()}${literal(k)}${ws()}:${ws()}${write(v[k]!, pick)}${ws()}`)
    .join(',')}${ws()}}`;
}

/** Deep equality that tells -0 from 0 and keeps the order of keys. */
const same = (a: unknown, b: unknown): boolean => isDeepStrictEqual(shape(a), shape(b));
function shape(v: unknown): unknown {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : v;
  if (Array.isArray(v)) return v.map(shape);
  if (v !== null && typeof v === 'object') {
    if (Object.getPrototypeOf(v) !== Object.prototype) return 'an object of another prototype';
    return Object.keys(v).map((k) => [k, shape((v as Record<string, unknown>)[k])]);
  }
  return v;
}

/** Whether some name in `text` (valid JSON) holds a backslash: a plain scan. */
function escapedName(text: string): boolean {
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

t.test('property: every spelling of a value reads as that value, under every rule for names', async (t) => {
  const rules = ['unchecked', 'top-level', 'everywhere'] as const;
  let withEscapedName = 0;
  fc.assert(
    fc.property(json, fc.integer(), fc.boolean(), fc.nat(2), (v, seed, bom, rule) => {
      let x = seed >>> 0;
      const pick = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
      const body = `${pick() < 0.5 ? '' : ' \n'}${write(v, pick)}${pick() < 0.5 ? '' : '\r\n'}`;
      if (escapedName(body)) withEscapedName++;
      if (hasEscapedName(body) !== escapedName(body)) return false;
      const got = readJson(bom ? `\ufeff${body}` : body, { maxDepth: 1000, uniqueNames: rules[rule]! });
      return same(got, v);
    }),
    { numRuns: RUNS, ...SEED },
  );
  t.ok(withEscapedName > RUNS / 20, `${RUNS} random texts, ${withEscapedName} with an escaped name (read around JSON.parse)`);
});

t.test('examples', async (t) => {
  const read = (text: string) => readJson(text, { maxDepth: 100, uniqueNames: 'everywhere' });
  t.ok(Object.is((read('{"\\u0061":-0}') as { a: number }).a, -0), '-0 read around JSON.parse is -0');
  t.same(read('{"\\u0061":[1E+2,1e400,-1e400,9007199254740993]}'), { a: [100, Infinity, -Infinity, 9007199254740992] });
  t.equal((read('{"\\u0061":"\\ud800"}') as { a: string }).a, '\ud800', 'a lone surrogate stays one');
  const proto = read('{"\\u005f_proto__":{"polluted":1}}') as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(proto), Object.prototype, '__proto__ is no prototype');
  t.same(Object.keys(proto), ['__proto__'], 'but an own key');
  t.equal(({} as { polluted?: number }).polluted, undefined);
  t.same(Object.keys(read('{"\\u0062":1,"1":2,"a":3,"0":4}') as object), ['0', '1', 'b', 'a'], 'index-like names first, as JSON.parse orders them');
});
