// The TypeError for a value of the wrong type names its type. It said "an object with a custom
// prototype" for plain objects, arrays and Errors: it read `constructor` from the prototype as a
// data property, and the lockdown makes the intrinsics' `constructor` an accessor. The runtime
// names a type by its own references to the intrinsics, and runs none of the handler's getters.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

/** A value (as code) → how a TypeError names it. */
const VALUES: [string, string][] = [
  ['{ a: 1 }', 'an object'],
  ['Object.create(null)', 'an object'],
  ['[1, 2]', 'an array'],
  ['new Error("x")', 'an Error'],
  ['new RangeError("x")', 'a RangeError'],
  ['() => 1', 'a function'],
  ['new Map()', 'a Map'],
  ['new Uint8Array(2)', 'a Uint8Array'],
  ['Promise.resolve()', 'a Promise'],
  ['new Proxy([], {})', 'an array'],
  ['new Widget()', 'a Widget'],
  ['new Oops()', 'an Oops'],
  ['Object.create(Object.create(null))', 'an object with a custom prototype'],
  ['new Sneaky()', 'an object with a custom prototype'],
  ['null', 'null'],
  ['undefined', 'undefined'],
  ['Symbol("s")', 'a symbol'],
];

const s = await sandboxServer(
  {
    models: { values: PEOPLE },
    resources: {
      'values.ts': `
        class Widget {}
        class Oops extends Error {}
        // A class whose name and prototype constructor are getters: the runtime must not run them.
        let getters = 0;
        class Sneaky { static get name() { getters++; return 'Evil'; } }
        Object.defineProperty(Sneaky.prototype, 'constructor', { get() { getters++; return Sneaky; } });
        const VALUES: unknown[] = [${VALUES.map(([code]) => code).join(', ')}];
        const message = (f: () => unknown) => {
          try {
            f();
            return 'no error';
          } catch (e) {
            return e instanceof TypeError ? e.message : 'not a TypeError: ' + String(e);
          }
        };
        zput('/request/json/output', {
          echo: VALUES.map((v) => message(() => echo(v))),
          header: VALUES.map((v) => message(() => zput('/request/headers/out/x-a', v as string))),
          copy: VALUES.map((v) => message(() => zput('/x', v))),
          getters,
        });
        render();`,
    },
  },
  { dev: true },
);
t.teardown(() => s.close());

const ONLY_JSON = 'only JSON data crosses: null, booleans, finite numbers, strings, arrays and plain objects (Dates become ISO strings)';
const out = await body(await fetch(s.at('/resources/values')));

t.test('echo() names the type of what it cannot write', async (t) => {
  for (const [i, [code, name]] of VALUES.entries()) {
    t.equal(out.echo[i], `echo: write text (a string or a number), not ${name}`, code);
  }
});

t.test('zput of a header names the type of what is not text', async (t) => {
  for (const [i, [code, name]] of VALUES.entries()) {
    // zput(key, undefined) unsets the key: no error.
    t.equal(out.header[i], code === 'undefined' ? 'no error' : `zput("/request/headers/out/x-a"): expected a string, not ${name}`, code);
  }
});

t.test('no getter of the handler ran for it', async (t) => {
  t.equal(out.getters, 0);
});

t.test('zput of a value it cannot copy names its type', async (t) => {
  for (const [i, [code, name]] of VALUES.entries()) {
    // JSON data is copied (a Proxy of an array too); zput(key, undefined) unsets the key.
    const copyable = ['{ a: 1 }', 'Object.create(null)', '[1, 2]', 'new Proxy([], {})', 'null', 'undefined'].includes(code);
    t.equal(out.copy[i], copyable ? 'no error' : `zput("/x"): the value is not copyable (${name}); ${ONLY_JSON}`, code);
  }
});
