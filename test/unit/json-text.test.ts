// The one reader of JSON text from outside the process (src/model/json-text.ts), on its own: a name
// repeated in any object is found with the path to it, escaped names read right, and the quick test
// parseGuestJson relies on agrees with the reader's own scan. Random texts, escapes and white space
// in names included; names ending in a backslash set off V8's key-cache bug (nodejs/node#63785), so
// expectations are built from the generated tree, never with JSON.parse.

import fc from 'fast-check';
import t from 'tap';
import { hasEscapedName, JsonTextError, readJson, type JsonFault } from '../../src/model/json-text.ts';

/** Random runs; more with SVC_PROPERTY_RUNS. */
const RUNS = Number(process.env.SVC_PROPERTY_RUNS ?? 500);
const SEED = process.env.SVC_PROPERTY_SEED ? { seed: Number(process.env.SVC_PROPERTY_SEED) } : {};

/** A JSON value as written: an object is its members in order, a name possibly repeated. */
type Tree = number | boolean | null | string | { items: Tree[] } | { members: Member[] };
/** A member: its name, value, which characters of the name are written as \u escapes, and the white space around its colon. */
type Member = [name: string, value: Tree, mask: number, space: string];

const name = fc.string({ unit: fc.constantFrom('a', 'b', 'n', '"', '\\', 'é', '😀', '\u0000', ':', '{', '}', ','), maxLength: 3 });
const tree: fc.Arbitrary<Tree> = fc.letrec<{ v: Tree }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), name),
    fc.record({ items: fc.array(tie('v'), { maxLength: 3 }) }),
    fc.record({ members: fc.array(fc.tuple(name, tie('v'), fc.nat(7), fc.constantFrom('', ' ', '\n\t')), { maxLength: 4 }) }),
  ),
})).v;

const escaped = (c: string) => Array.from({ length: c.length }, (_, k) => `\\u${c.charCodeAt(k).toString(16).padStart(4, '0')}`).join('');
const literal = (s: string, mask: number) => `"${[...s].map((c, i) => ((mask >> i) & 1 ? escaped(c) : JSON.stringify(c).slice(1, -1))).join('')}"`;

function text(v: Tree): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if ('items' in v) return `[${v.items.map(text).join(',')}]`;
  return `{${v.members.map(([k, x, mask, ws]) => `${literal(k, mask)}${ws}:${ws}${text(x)}`).join(',')}}`;
}

/** The first name that repeats in its object, in the order of the text, with the path to that object. */
function firstRepeat(v: Tree, path: (string | number)[] = []): { path: (string | number)[]; name: string } | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  if ('items' in v) {
    for (const [i, x] of v.items.entries()) {
      const r = firstRepeat(x, [...path, i]);
      if (r) return r;
    }
    return undefined;
  }
  const seen = new Set<string>();
  for (const [k, x] of v.members) {
    if (seen.has(k)) return { path, name: k };
    seen.add(k);
    const r = firstRepeat(x, [...path, k]);
    if (r) return r;
  }
  return undefined;
}

/** The value the text means, built without JSON.parse. Only for trees without a repeated name. */
function value(v: Tree): unknown {
  if (v === null || typeof v !== 'object') return v;
  if ('items' in v) return v.items.map(value);
  return Object.fromEntries(v.members.map(([k, x]) => [k, value(x)]));
}

const hasEscape = (v: Tree): boolean =>
  v !== null && typeof v === 'object' && ('items' in v ? v.items.some(hasEscape) : v.members.some(([k, x, mask]) => literal(k, mask).includes('\\') || hasEscape(x)));

function fault(json: string): JsonFault | undefined {
  try {
    readJson(json, { maxDepth: 100, uniqueNames: 'everywhere' });
    return undefined;
  } catch (e) {
    if (e instanceof JsonTextError) return e.fault;
    throw e;
  }
}

t.test('property: a name repeated in any object is refused with the path to it; else the text reads as written', async (t) => {
  fc.assert(
    fc.property(tree, (v) => {
      const json = text(v);
      const repeat = firstRepeat(v);
      const f = fault(json);
      if (repeat === undefined) return f === undefined && JSON.stringify(readJson(json, { maxDepth: 100, uniqueNames: 'everywhere' })) === JSON.stringify(value(v));
      return f?.kind === 'repeated-name' && f.name === repeat.name && JSON.stringify(f.path) === JSON.stringify(repeat.path) && f.at !== undefined && json[f.at] === '"';
    }),
    { numRuns: RUNS, ...SEED },
  );
  t.pass(`${RUNS} random texts`);
});

t.test('property: hasEscapedName is true exactly when a name is written with a backslash', async (t) => {
  fc.assert(
    fc.property(tree, (v) => hasEscapedName(text(v)) === hasEscape(v)),
    { numRuns: RUNS, ...SEED },
  );
  t.pass(`${RUNS} random texts`);
});

t.test('a repeat is named where it is', async (t) => {
  t.match(fault('{"a":[{"x":1},{"y":{"z":1,"z":2}}]}'), { kind: 'repeated-name', path: ['a', 1, 'y'], name: 'z', at: 26 });
  t.match(fault('{"n":1,"\\u006e":2}'), { kind: 'repeated-name', path: [], name: 'n', at: 7 });
  t.match(fault('\uFEFF{"n":1, "n" :2}'), { kind: 'repeated-name', path: [], name: 'n', at: 8 }, 'a byte order mark is not counted');
  t.equal(fault('{"a":{"n":1},"b":{"n":1},"c":[{"n":1},{"n":1}]}'), undefined, 'the same name in other objects is no repeat');
  t.match(fault('[['.repeat(51) + ']]'.repeat(51)), { kind: 'depth', max: 100 });
  t.match(fault('{"a":1,}'), { kind: 'syntax', at: 7 });
  t.same(readJson('{"a":1,"a":2}', { maxDepth: 100, uniqueNames: 'unchecked' }), { a: 2 }, 'unchecked: the last wins, as JSON.parse has it');
  t.same(readJson('[{"a":1,"a":2}]', { maxDepth: 100, uniqueNames: 'top-level' }), [{ a: 2 }], 'top-level: only the outermost object');
});
