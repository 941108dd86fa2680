// Isolation: nothing of the host is reachable, and nothing one request leaves behind is visible to the next.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { reach: PEOPLE, leak: PEOPLE },
    resources: {
      'reach.ts': `
        export function onList() {
          const g = globalThis as any;
          const names = ['require', 'process', 'Buffer', 'module', 'exports', 'global', 'fetch', 'XMLHttpRequest', 'WebSocket',
            'setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask', 'structuredClone', 'SharedArrayBuffer', 'Atomics',
            'WebAssembly', 'FinalizationRegistry', 'WeakRef', 'importScripts', 'Deno', 'Bun', 'navigator', 'performance'];
          const present = names.filter((n) => typeof g[n] !== 'undefined');
          zput('/request/json/output', { present, frozen: Object.isFrozen(globalThis) && Object.isFrozen(Object.prototype) });
          render();
        }`,
      // Request "write" tries every channel it can think of; request "read" looks for the secret.
      'leak.ts': `
        let moduleState: string | undefined;
        const shared: Record<string, unknown> = {};
        export function onList() {
          const mode = zget('/request/params/mode');
          zdelete('/request/params/mode');
          const secret = 'secret-of-user-a';
          if (mode === 'write') {
            moduleState = secret;
            shared.secret = secret;
            zput('/mine', secret);
            const g = globalThis as any;
            const attempts = [
              () => { g.secret = secret; },
              () => { Object.defineProperty(g, 'secret', { value: secret }); },
              () => { (Object.prototype as any).secret = secret; },
              () => { (Math as any).secret = secret; },
              () => { (svc as any).secret = secret; },
              () => { (zget as any).secret = secret; },
              () => { (Array.prototype as any).secret = secret; },
            ];
            for (const a of attempts) { try { a(); } catch { /* frozen */ } }
            /(secret-of-user-a)/.exec(secret); // would set RegExp.$1
            Symbol.for(secret);
            Promise.resolve().then(() => zput('/late', secret)).catch(() => {});
            echo('written');
            return;
          }
          const g = globalThis as any;
          const found = {
            moduleState: moduleState ?? null,
            shared: shared.secret ?? null,
            context: zget('/mine') ?? null,
            late: zget('/late') ?? null,
            global: g.secret ?? null,
            objectProto: ({} as any).secret ?? null,
            math: (Math as any).secret ?? null,
            svc: (svc as any).secret ?? null,
            zget: (zget as any).secret ?? null,
            regexpStatic: (RegExp as any).$1 ?? null,
          };
          zput('/request/json/output', found);
          render();
        }`,
    },
  },
  // One isolate, so that both requests certainly run in the same one.
  { limits: { maxIsolates: 1 } },
);
t.teardown(() => s.close());

t.test('no require, process, Buffer, network, timers or cross-request state carriers', async (t) => {
  const out = await body(await fetch(s.at('/resources/reach')));
  // fetch() is the runtime's own, and reaches only origins the app's svc.json lists (fetch.test.ts).
  t.same(out.present, ['fetch']);
  t.equal(out.frozen, true);
});

t.test('a request sees nothing another request left behind', async (t) => {
  t.equal(await (await fetch(s.at('/resources/leak?mode=write'))).text(), 'written');
  const found = await body(await fetch(s.at('/resources/leak?mode=read')));
  t.same(found, {
    moduleState: null,
    shared: null,
    context: null,
    late: null,
    global: null,
    objectProto: null,
    math: null,
    svc: null,
    zget: null,
    regexpStatic: null,
  });
});

t.test("concurrent requests do not see each other's context", async (t) => {
  const outs = await Promise.all(Array.from({ length: 6 }, (_, i) => fetch(s.at(`/resources/leak?mode=${i % 2 ? 'write' : 'read'}`)).then((r) => r.text())));
  for (const [i, text] of outs.entries()) {
    if (i % 2) t.equal(text, 'written');
    else t.notMatch(text, /secret-of-user-a/);
  }
});
