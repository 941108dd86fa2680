// Attack: changing shared intrinsics or the runtime API inside the isolate, to affect later requests or hijack runtime calls.

import t from 'tap';
import { body, eventually, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { tamper: PEOPLE, victim: PEOPLE },
    resources: {
      'tamper.ts': `
        const tries: Record<string, () => void> = {
          objectProto: () => { (Object.prototype as any).polluted = 'yes'; },
          objectProtoDefine: () => { Object.defineProperty(Object.prototype, 'polluted', { get() { return 'yes'; } }); },
          arrayPush: () => { Array.prototype.push = function () { return 0; }; },
          arrayMap: () => { (Array.prototype as any).map = () => []; },
          jsonParse: () => { (JSON as any).parse = () => ({ hijacked: true }); },
          jsonStringify: () => { (JSON as any).stringify = () => '"hijacked"'; },
          mapGet: () => { Map.prototype.get = () => 'hijacked'; },
          stringStartsWith: () => { String.prototype.startsWith = () => true; },
          functionApply: () => { (Function.prototype as any).apply = () => 'hijacked'; },
          promiseThen: () => { (Promise.prototype as any).then = () => 'hijacked'; },
          globalVar: () => { (globalThis as any).leak = 'from an earlier request'; },
          globalDefine: () => { Object.defineProperty(globalThis, 'leak', { value: 'x' }); },
          replaceRuntime: () => { (globalThis as any).zget = () => 'hijacked'; },
          replaceSvcMethod: () => { (svc as any).delegate = () => 'hijacked'; },
          setPrototypeOfGlobal: () => { Object.setPrototypeOf(globalThis, { leak: 'x' }); },
          errorPrepare: () => { (Error as any).prepareStackTrace = () => 'x'; },
          symbolIterator: () => { (Array.prototype as any)[Symbol.iterator] = function* () { yield 'hijacked'; }; },
        };
        export function onList() {
          const results: Record<string, string> = {};
          for (const [name, f] of Object.entries(tries)) {
            try { f(); results[name] = 'changed'; } catch (e) { results[name] = (e as Error).name; }
          }
          // Ordinary code that assigns over inherited properties keeps working.
          class MyError extends Error { constructor() { super('mine'); this.name = 'MyError'; } }
          const o: Record<string, unknown> = {};
          o.toString = () => 'own toString';
          o.constructor = 'data';
          function Legacy(this: any) {}
          Legacy.prototype.toString = function () { return 'legacy'; };
          results.ordinaryCode = [new MyError().name, String(o), o.constructor, String(new (Legacy as any)())].join(',');
          zput('/request/json/output', results);
          render();
        }`,
      'victim.ts': `
        export function onList() {
          zput('/request/params/count', '10');
          svc.delegate();
          const seen = {
            polluted: ({} as any).polluted ?? null,
            leak: (globalThis as any).leak ?? null,
            push: [1].push(2),
            map: [1, 2].map((x) => x * 2).join(','),
            json: JSON.parse('{"a":1}').a,
            startsWith: 'abc'.startsWith('x'),
            spread: [...[1, 2]].join(','),
          };
          console.log('victim saw', JSON.stringify(seen));
        }
        export function onCreate() { svc.delegate(); }`,
    },
  },
  { dev: true },
);
t.teardown(() => s.close());

t.test('intrinsics, globalThis and the runtime API are frozen: every change throws', async (t) => {
  const res = await fetch(s.at('/resources/tamper'));
  t.equal(res.status, 200);
  const results = await body(res);
  for (const [name, outcome] of Object.entries(results)) {
    if (name === 'ordinaryCode') continue;
    t.equal(outcome, 'TypeError', name);
  }
  t.equal(results.ordinaryCode, 'MyError,own toString,data,legacy', 'assigning own properties over frozen inherited ones still works');
});

t.test('a later request, in any isolate, sees pristine intrinsics and a working runtime', async (t) => {
  // Tamper in every isolate of the pool, then use the runtime.
  await Promise.all(Array.from({ length: 8 }, () => fetch(s.at('/resources/tamper')).then((r) => r.text())));
  const created = await fetch(s.at('/resources/victim'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Vic"}' });
  t.equal(created.status, 201);
  const list = await fetch(s.at('/resources/victim'));
  t.equal(list.status, 200);
  t.match(await body(list), [{ name: 'Vic' }]);
  t.ok(await eventually(() => s.log.some((l) => l.includes('victim saw'))));
  const line = s.log.find((l) => l.includes('victim saw'));
  t.same(JSON.parse(line!.slice(line!.indexOf('{'))), { polluted: null, leak: null, push: 2, map: '2,4', json: 1, startsWith: false, spread: '1,2' });
});
