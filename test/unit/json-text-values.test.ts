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
import { escapedName, jsonValue as json, picker, writeJson as write } from '../helpers/json-spellings.ts';

/** Random runs; more with SVC_PROPERTY_RUNS. */
const RUNS = Number(process.env.SVC_PROPERTY_RUNS ?? 2000);
const SEED = process.env.SVC_PROPERTY_SEED ? { seed: Number(process.env.SVC_PROPERTY_SEED) } : {};

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

t.test('property: every spelling of a value reads as that value, under every rule for names', async (t) => {
  const rules = ['unchecked', 'top-level', 'everywhere'] as const;
  let withEscapedName = 0;
  fc.assert(
    fc.property(json, fc.integer(), fc.boolean(), fc.nat(2), (v, seed, bom, rule) => {
      const pick = picker(seed);
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
