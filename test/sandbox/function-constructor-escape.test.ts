// Attack: reaching the host through the Function constructor, runtime functions, errors or dynamic import.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { escape: PEOPLE },
    resources: {
      'escape.ts': `
        const attempts: Record<string, () => unknown> = {
          functionCtorGlobal: () => Object.keys(Function('return this')()).length,
          processViaCtor: () => (function () {}).constructor('return typeof process')(),
          requireViaCtor: () => (function () {}).constructor('return typeof require')(),
          processViaRuntimeFn: () => (svc.delegate as any).constructor('return typeof process')(),
          processViaZget: () => (zget as any).constructor.constructor('return typeof process')(),
          processViaConsole: () => (console.log as any).constructor('return typeof process')(),
          asyncCtor: () => Object.getPrototypeOf(async function () {}).constructor('return typeof process')() instanceof Promise,
          generatorCtor: () => Object.getPrototypeOf(function* () {}).constructor('yield typeof require')().next().value,
          evalProcess: () => (0, eval)('typeof process + typeof require + typeof Buffer + typeof module + typeof globalThis.global'),
          ivmGlobals: () => Object.getOwnPropertyNames(globalThis).filter((k) => /ivm|isolated|^\\$\\d|hostRef|^Reference$|^Callback$|^ExternalCopy$/i.test(k)).join(','),
          runtimeFnSource: () => /hostRef|applySyncPromise/.test(String(zget)) ? 'runtime source names the host reference' : 'opaque enough',
          prepareStackTrace: () => { (Error as any).prepareStackTrace = () => 'hijacked'; return new Error('x').stack; },
          callerChain: () => { function f(this: unknown) { return (f as any).caller; } return typeof f(); },
          dynamicImport: () => import(['node', 'fs'].join(':')).then(() => 'imported', (e) => 'refused: ' + (e as Error).constructor.name),
          errorStackOfRuntimeCall: () => { try { zput('/request/method', 'x'); } catch (e) { return (e as Error).stack; } },
          stackOfHostFailure: () => { try { svc.collection('nope'); } catch (e) { return (e as Error).stack; } },
        };
        export async function onList() {
          const name = String(zget('/request/params/try'));
          let result: unknown;
          try { result = await attempts[name]!(); } catch (e) { result = 'threw ' + (e as Error).name + ': ' + (e as Error).message; }
          zdelete('/request/params/try');
          zput('/request/json/output', { result: result === undefined ? null : result });
          render();
        }`,
    },
  },
  { dev: true },
);
t.teardown(() => s.close());

async function attempt(name: string): Promise<unknown> {
  const res = await fetch(s.at(`/resources/escape?try=${name}`));
  return (await body(res)).result;
}

t.test('the Function constructor builds functions in the isolate only: no process, require or Buffer', async (t) => {
  t.equal(await attempt('processViaCtor'), 'undefined');
  t.equal(await attempt('requireViaCtor'), 'undefined');
  t.equal(await attempt('processViaRuntimeFn'), 'undefined', 'runtime functions are isolate functions');
  t.equal(await attempt('processViaZget'), 'undefined');
  t.equal(await attempt('processViaConsole'), 'undefined');
  t.equal(await attempt('asyncCtor'), true);
  t.equal(await attempt('generatorCtor'), 'undefined');
  t.equal(await attempt('evalProcess'), 'undefinedundefinedundefinedundefinedundefined');
});

t.test('no isolated-vm object or host reference is reachable from the global object', async (t) => {
  t.equal(await attempt('ivmGlobals'), '');
  t.equal(await attempt('runtimeFnSource'), 'opaque enough');
  t.type(await attempt('functionCtorGlobal'), 'number');
});

t.test('stack traces cannot be hijacked and name no host file', async (t) => {
  const hijack = await attempt('prepareStackTrace');
  t.match(hijack, /^threw TypeError: Cannot (add|assign)/, 'Error is frozen');
  t.equal(await attempt('callerChain'), 'threw TypeError: \'caller\', \'callee\', and \'arguments\' properties may not be accessed on strict mode functions or the arguments objects for calls to them');
  for (const name of ['errorStackOfRuntimeCall', 'stackOfHostFailure']) {
    const stack = String(await attempt(name));
    t.notMatch(stack, /node_modules|\/src\/|\/tmp\/|\/work\/|file:|isolated-vm|node:|bridge|sandbox/, `${name}: ${stack.split('\n')[0]}`);
  }
});

t.test('dynamic import is refused', async (t) => {
  t.match(await attempt('dynamicImport'), /^(refused|threw)/);
});
