// A JSON member body with the same field twice: JSON.parse keeps the last value and says nothing,
// so `{"n":"not-an-int","n":5}` passed validation. RFC 8259 §4 leaves duplicate names to the
// reader; svc refuses them, as it refuses a duplicate <dt> in Atom (README "Representations").

import fc from 'fast-check';
import t, { type Test } from 'tap';
import { SvcError } from '../../src/errors.ts';
import { json } from '../../src/representation/json.ts';
import { employees } from '../helpers/atom-fixtures.ts';

/** Random runs; more with SVC_PROPERTY_RUNS. */
const RUNS = Number(process.env.SVC_PROPERTY_RUNS ?? 500);

/** The SvcError parsing `text` throws, or undefined when it parses. */
function refusal(text: string): SvcError | undefined {
  try {
    json.parseMember(text, employees);
    return undefined;
  } catch (e) {
    if (e instanceof SvcError) return e;
    throw e;
  }
}

function rejects(t: Test, text: string, message: RegExp): void {
  const err = refusal(text);
  t.ok(err, 'refused');
  t.equal(err?.code, 'invalid-json');
  t.equal(err?.status, 400);
  t.match(err?.message, message);
}

t.test('a field sent twice is 400 invalid-json naming the field', async (t) => {
  rejects(t, '{"name":"first","n":"not-an-int","name":"second","n":5}', /^The field "name" appears more than once in the JSON object: send each field once\.$/);
  rejects(t, '{"a":1,"b":{"a":2},"a":3}', /field "a" appears more than once/);
  rejects(t, ' \n{ "a" : 1 , "a" : 1 }\n', /field "a" appears more than once/);
  rejects(t, '\uFEFF{"a":1,"a":2}', /field "a" appears more than once/);
  rejects(t, '{"__proto__":1,"__proto__":{}}', /field "__proto__" appears more than once/);
  rejects(t, '{"":1,"":2}', /field "" appears more than once/);
});

t.test('names compare after unescaping', async (t) => {
  rejects(t, '{"n":1,"\\u006e":2}', /field "n" appears more than once/);
  rejects(t, '{"a\\"b":1,"a\\u0022b":2}', /field "a"b" appears more than once/);
  rejects(t, '{"\\ud83d\\ude00":1,"😀":2}', /field "😀" appears more than once/);
  rejects(t, '{"\\\\":1,"\\u005c":2}', /field "\\" appears more than once/);
});

t.test('a long duplicate name is shown cut short', async (t) => {
  const name = 'x'.repeat(10_000);
  const err = refusal(`{"${name}":1,"${name}":2}`);
  t.equal(err?.code, 'invalid-json');
  t.ok(err!.message.length < 200, 'the message does not echo the whole name');
  t.match(err?.message, /field "x{64}…" appears more than once/);
});

t.test('the same name in nested objects, arrays or values is not a duplicate', async (t) => {
  for (const text of [
    '{"a":{"a":1},"b":{"a":2}}',
    '{"a":[{"a":1},{"a":1}]}',
    '{"a":"a","b":"a"}',
    '{"a":"\\"a\\":1,\\"a\\":2","b":"x"}',
    '{"a\\\\":1,"a":2}',
    '{"n":1,"N":2,"\\u006E1":3}',
    '{}',
  ]) {
    t.equal(refusal(text), undefined, text);
  }
});

t.test('bodies that are not objects are judged as before', async (t) => {
  rejects(t, '[{"a":1,"a":2}]', /must be a JSON object/);
  rejects(t, '["a","a"]', /must be a JSON object/);
  rejects(t, '"a:a"', /must be a JSON object/);
  rejects(t, '{"a":1,"a":2', /not valid JSON/);
  rejects(t, '{"a":1,"a":2}}', /not valid JSON/);
  rejects(t, '{"a" 1,"a":2}', /not valid JSON/);
});

// The property: for a random object written as JSON text, with some of its names written again
// (escaped or not, anywhere among the others), the body is refused as a duplicate exactly when a
// name repeats, and the duplicate named is one that repeats; else it reads as the object sent.
// Names ending in a backslash are in the alphabet: they set off V8's key-cache bug (src/model/json-text.ts).
t.test('property: refused exactly when a top-level name repeats, else read as sent', async (t) => {
  const name = fc.string({ unit: fc.constantFrom('a', 'b', 'n', '"', '\\', 'é', '😀', '\u0000', ':', '{', '}', ','), maxLength: 3 });
  const leaf = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), name);
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(name, tie('v'), { maxKeys: 3 })),
  })).v;
  /** A name as a JSON string literal, with some characters written as \u escapes. */
  const escaped = (c: string) => Array.from({ length: c.length }, (_, k) => `\\u${c.charCodeAt(k).toString(16).padStart(4, '0')}`).join('');
  const literal = (s: string, mask: number) => `"${[...s].map((c, i) => ((mask >> i) & 1 ? escaped(c) : JSON.stringify(c).slice(1, -1))).join('')}"`;
  const member = fc.tuple(name, value, fc.nat(7), fc.constantFrom('', ' ', '\n\t'));
  fc.assert(
    fc.property(fc.array(member, { maxLength: 8 }), (members) => {
      const text = `{${members.map(([k, v, mask, ws]) => `${ws}${literal(k, mask)}${ws}:${ws}${JSON.stringify(v)}`).join(',')}}`;
      const names = members.map(([k]) => k);
      const repeated = new Set(names.filter((k, i) => names.indexOf(k) !== i));
      const err = refusal(text);
      if (repeated.size === 0) return err === undefined && JSON.stringify(json.parseMember(text, employees).values) === JSON.stringify(Object.fromEntries(members.map(([k, v]) => [k, v] as const)));
      const m = /^The field "([\s\S]*)" appears more than once in the JSON object/.exec(err?.message ?? '');
      return err?.code === 'invalid-json' && m !== null && repeated.has(m[1]!);
    }),
    { numRuns: RUNS, ...(process.env.SVC_PROPERTY_SEED ? { seed: Number(process.env.SVC_PROPERTY_SEED) } : {}) },
  );
  t.pass(`${RUNS} random objects`);
});
