// The isolate's JSON reader (runtime/prelude.js: parseJson, hasEscapedName, readValid) is a copy of
// the host's (src/model/json-text.ts), which an isolate cannot import: both read escaped names
// around V8's bug (nodejs/node#63785). They must agree on every text, so that a change to one that
// the other lacks fails here: random values in every spelling (test/helpers/json-spellings.ts), and
// some of them cut short, go through the host's reader and through the prelude's, evaluated and
// locked down in an isolate as the server does it. One isolate for every text: their objects
// poison its JSON.parse for one another, as requests do.

import fc from 'fast-check';
import { deepStrictEqual } from 'node:assert/strict';
import ivm from 'isolated-vm';
import t from 'tap';
import { hasEscapedName, JsonTextError, readJson } from '../../src/model/json-text.ts';
import { evaluatePrelude } from '../../src/sandbox/bridge.ts';
import { escapedName, jsonValue, picker, writeJson } from '../helpers/json-spellings.ts';

/** Random runs; more with SVC_PROPERTY_RUNS. */
const RUNS = Number(process.env.SVC_PROPERTY_RUNS ?? 2000);
const SEED = process.env.SVC_PROPERTY_SEED ? { seed: Number(process.env.SVC_PROPERTY_SEED) } : {};

/**
 * A value as text that tells all JSON.parse decides: -0 and non-finite numbers, names in their
 * order, the prototype, each property an own writable, enumerable, configurable data property. Run
 * in the isolate too, from its source: it uses nothing from outside itself.
 */
function described(v: unknown): string {
  const shape = (x: unknown): unknown => {
    if (typeof x === 'number') return ['number', Object.is(x, -0) ? '-0' : String(x)];
    if (x === null || typeof x !== 'object') return x;
    if (Array.isArray(x)) return ['array', x.map(shape)];
    return [
      Object.getPrototypeOf(x) === Object.prototype ? 'object' : 'an object of another prototype',
      Reflect.ownKeys(x).map((k) => {
        const d = Object.getOwnPropertyDescriptor(x, k)!;
        return [String(k), d.writable && d.enumerable && d.configurable ? 'data' : 'not data', shape(d.value)];
      }),
    ];
  };
  return JSON.stringify(shape(v));
}

interface Reading {
  /** described() of the value, or the name of the error thrown. */
  readonly parse: string;
  /** Only for text JSON.parse accepts. */
  readonly hasEscapedName?: boolean;
  /** The prelude's readValid on its own (the host's is not exported: readJson's value stands in). */
  readonly readValid?: string;
}

function hostReading(text: string): Reading {
  let value: unknown;
  try {
    value = readJson(text, { maxDepth: 10_000, uniqueNames: 'unchecked' });
  } catch (e) {
    if (e instanceof JsonTextError && e.fault.kind === 'syntax') return { parse: 'SyntaxError' };
    throw e;
  }
  return { parse: described(value), hasEscapedName: hasEscapedName(text), readValid: described(value) };
}

const isolate = new ivm.Isolate({ memoryLimit: 64 });
t.teardown(() => isolate.dispose());
const context = await isolate.createContext();
const api = await evaluatePrelude(context, new ivm.Reference(() => ''));
const probe = (await context.evalClosure(
  `const json = $0.deref().json;
   const described = ${described};
   return (text) => {
     let value;
     try {
       value = json.parse(text);
     } catch (e) {
       return JSON.stringify({ parse: e.name });
     }
     return JSON.stringify({ parse: described(value), hasEscapedName: json.hasEscapedName(text), readValid: described(json.readValid(text)) });
   };`,
  [api],
  { result: { reference: true } },
)) as ivm.Reference<(text: string) => string>;
const guestReading = (text: string): Reading => JSON.parse(probe.applySync(undefined, [text]) as string) as Reading;

t.test('property: the prelude reads every text as the host does', async (t) => {
  let withEscapedName = 0;
  let refused = 0;
  fc.assert(
    fc.property(jsonValue, fc.integer(), (v, seed) => {
      const pick = picker(seed);
      let text = `${pick() < 0.5 ? '' : ' \n'}${writeJson(v, pick)}${pick() < 0.5 ? '' : '\r\n'}`;
      // Now and then text that is not JSON (or is, cut where a value ends): both must refuse it, or neither.
      if (pick() < 0.1) text = text.slice(0, Math.floor(pick() * text.length));
      const host = hostReading(text);
      if (host.parse === 'SyntaxError') refused++;
      else if (escapedName(text)) withEscapedName++;
      // A difference fails with both readings and the text, shrunk to a small one.
      deepStrictEqual(guestReading(text), host, JSON.stringify(text));
    }),
    { numRuns: RUNS, ...SEED },
  );
  t.ok(withEscapedName > RUNS / 20 && refused > 0, `${RUNS} random texts, ${withEscapedName} with an escaped name, ${refused} refused`);
});

t.test('examples, after a poison', async (t) => {
  const texts: [string, string][] = [
    ['the poison', '{"text":"a","\\\\":1}'],
    ['" in its place', '{"text":"b","\\"":1}'],
    ['n in its place', '{"text":"b","\\u006e":1}'],
    ['names of Object.prototype', '{"\\u005f_proto__":{"polluted":1},"toString":2,"constructor":{"\\u0061":3}}'],
    ['index-like names first, a repeat in its first place', '{"\\u0062":1,"1":2,"a":3,"0":4,"\\u0062":5}'],
    ['numbers, lone surrogates, white space', '[{"caf\\u00e9" : -0, "x":"\\\\\\"" , "y" : [1E+2,1e400,"\\ud800"]}]'],
    ['a lone string', '"\\u0061"'],
    ['a value that looks like a name', '{"a":"\\"}":1}'],
  ];
  for (const [what, text] of texts) t.same(guestReading(text), hostReading(text), what);
  t.same(JSON.parse(guestReading('{"text":"b","\\"":1}').parse), ['object', [['text', 'data', 'b'], ['"', 'data', ['number', '1']]]], 'the " is read as "');
});
