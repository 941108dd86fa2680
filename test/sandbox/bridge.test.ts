// The host side of the boundary on its own: what it accepts from the isolate.

import t from 'tap';
import { checkHead, checkOutcome, parseGuestJson } from '../../src/sandbox/guest.ts';

t.test('guest JSON: __proto__ keys and object-valued constructor keys are dropped at every depth', async (t) => {
  const v = parseGuestJson('{"a":{"__proto__":{"x":1},"constructor":{"prototype":{"y":2}},"b":[{"__proto__":1}]},"constructor":"data"}') as any;
  t.same(Object.keys(v.a), ['b']);
  t.same(Object.keys(v.a.b[0]), []);
  t.equal(v.constructor, 'data', 'a scalar constructor is plain data');
  t.equal(({} as any).x, undefined);
  t.throws(() => parseGuestJson('['.repeat(200) + ']'.repeat(200)), /nested deeper/);
});

t.test('guest JSON: escaped names read right after any parse in the process (nodejs/node#63785)', async (t) => {
  // The poison: names `note` then one ending in a backslash. Through V8's cache the name `"` in
  // that place came out as `\` (test/sandbox/attack-json-escaped-name-cache.test.ts, over HTTP).
  JSON.parse('{"note":"a","\\\\":1}');
  const v = parseGuestJson(JSON.stringify({ collection: 'notes', method: 'create', args: [{ note: 'b', '"': 1 }] })) as { args: object[] };
  t.same(Object.keys(v.args[0]!), ['note', '"']);
  const nested = parseGuestJson('{"a":{"__proto__":{"x":1},"\\u0062":[{"__proto__":1}]}}') as any;
  t.same(Object.keys(nested.a), ['b'], 'read around the cache, __proto__ is still dropped');
});

t.test('guest JSON: the same depth bound with and without an escaped name', async (t) => {
  const nest = (levels: number, name: string) => `{${name}:`.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
  for (const name of ['"a"', '"\\u0061"']) {
    t.doesNotThrow(() => parseGuestJson(nest(128, name)), `128 levels, names ${name}`);
    t.throws(() => parseGuestJson(nest(129, name)), { message: 'svc: a value nested deeper than 128 levels', type: 'TypeError' }, `129 levels, names ${name}`);
  }
});

t.test('status and headers from the guest are checked again on the host', async (t) => {
  t.same(checkHead({ status: 201, headers: [['x-a', 'b']] }), { status: 201, headers: [['x-a', 'b']] });
  t.throws(() => checkHead({ headers: [['x-a', 'b\r\nset-cookie: evil']] }), /malformed/);
  t.throws(() => checkHead({ headers: [['bad name', 'b']] }), /malformed/);
  t.throws(() => checkHead({ status: 99, headers: [] }), /malformed/);
  t.throws(() => checkHead({ status: '200', headers: [] }), /malformed/);
  t.throws(() => checkHead({ headers: Array.from({ length: 201 }, (_, i) => [`h${i}`, 'v']) }), /malformed/);
});

t.test('outcomes name only known events', async (t) => {
  t.same(checkOutcome({ notAllowed: ['list', 'retrieve'] }), { notAllowed: ['list', 'retrieve'] });
  t.throws(() => checkOutcome({ notAllowed: ['list', 'constructor'] }), /malformed/);
  t.throws(() => checkOutcome({ error: { name: 1, message: 'x' } }), /malformed/);
});
