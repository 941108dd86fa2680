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
