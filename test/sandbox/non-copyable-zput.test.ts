// Attack: handing the context values that cannot be copied (functions, symbols, cycles, host-like objects, prototype payloads).

import t from 'tap';
import { send } from '../helpers/server.ts';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { put: PEOPLE, proto: PEOPLE },
    resources: {
      'put.ts': `
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        class Point { x = 1; }
        const VALUES: Record<string, () => unknown> = {
          function: () => () => 1,
          nestedFunction: () => ({ a: [1, { f() {} }] }),
          symbol: () => Symbol('s'),
          bigint: () => 10n,
          nan: () => NaN,
          infinity: () => ({ n: Infinity }),
          cyclic: () => cyclic,
          classInstance: () => new Point(),
          map: () => new Map([[1, 2]]),
          regexp: () => /x/,
          promise: () => Promise.resolve(1),
          proxyOfFunction: () => new Proxy(function () {}, {}),
          throwingGetter: () => ({ get boom() { throw new Error('getter ran'); } }),
          typedArray: () => new Uint8Array(4),
          weakMap: () => new WeakMap(),
        };
        export function onList() {
          const results: Record<string, string> = {};
          for (const [name, make] of Object.entries(VALUES)) {
            try { zput('/mine/' + name, make()); results[name] = 'stored'; } catch (e) { results[name] = (e as Error).name + ': ' + (e as Error).message; }
          }
          try { zput(42 as unknown as string, 1); } catch (e) { results.nonStringKey = (e as Error).name; }
          // Copyable things are copied: later changes to the original do not reach the context.
          const original = { list: [1, 2], when: new Date(0), nested: { deep: true }, skip: undefined, arr: [undefined] };
          zput('/mine/ok', original);
          original.list.push(3);
          results.copied = JSON.stringify(zget('/mine/ok'));
          zput('/request/json/output', results);
          render();
        }`,
      // A body with prototype-pollution keys, built inside the isolate and handed to delegate().
      'proto.ts': `
        export function onCreate() {
          const b = JSON.parse('{"name":"Eve","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}');
          zput('/request/body', b);
          svc.delegate();
        }
        export function onList() { svc.delegate(); }`,
    },
  },
  { dev: true },
);
t.teardown(() => s.close());

t.test('functions, symbols, cycles and class instances are refused with a TypeError', async (t) => {
  const results = await body(await fetch(s.at('/resources/put')));
  for (const name of ['function', 'nestedFunction', 'symbol', 'bigint', 'nan', 'infinity', 'cyclic', 'classInstance', 'map', 'regexp', 'promise', 'proxyOfFunction', 'typedArray', 'weakMap']) {
    t.match(results[name], /^TypeError: zput\("\/mine\/\w+"\): the value.* is not copyable \(.+\); only JSON data crosses/, name);
  }
  t.match(results.nestedFunction, /at \.a\[1\]\.f/, 'the message points at the offending part');
  t.match(results.cyclic, /a cycle/);
  t.match(results.classInstance, /a Point/);
  t.equal(results.throwingGetter, 'Error: getter ran', "a getter runs in the isolate, as the handler's own code");
  t.equal(results.nonStringKey, 'TypeError');
  t.same(JSON.parse(results.copied), { list: [1, 2], when: '1970-01-01T00:00:00.000Z', nested: { deep: true }, arr: [null] });
});

t.test('__proto__ and object-valued constructor keys are dropped on the host; nothing is polluted', async (t) => {
  const res = await send(s.at('/resources/proto'), 'POST', {});
  t.equal(res.status, 201);
  const member = await body(res);
  t.match(member, { name: 'Eve' });
  t.notOk(Object.hasOwn(member, 'polluted'));
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'the host is not polluted');
  t.equal((await body(await fetch(s.at('/resources/proto')))).length, 1);
});
