// A handler that throws undefined (or rejects with it) failed: 500 handler-error, in the log, in
// every handler form; it was answered as a success, with the status and headers it had set.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

/** Collection → a handler that ends by throwing undefined, in one of the forms of README "Handlers". */
const THROWERS: Record<string, string> = {
  // An event function that set a status and a header first.
  event: "export function onDelete() { zput('/request/status', 200); zput('/request/headers/out/x-ok', '1'); throw undefined; }",
  // A top-level script, with a status and without.
  toplevel: "zput('/request/status', 201); zput('/request/headers/out/x-ok', '1'); throw undefined;",
  bare: 'throw undefined;',
  // Class dispatch: the method, and the constructor.
  method: "export class Method { onDelete() { zput('/request/headers/out/x-ok', '1'); throw undefined; } }",
  ctor: 'export class Ctor { constructor() { throw undefined; } onDelete() {} }',
  // A promise: an async function, a rejected promise returned, a thenable whose then throws.
  async: "export async function onDelete() { zput('/request/headers/out/x-ok', '1'); await null; throw undefined; }",
  rejected: 'export function onDelete() { return Promise.reject(undefined); }',
  thenable: 'export function onDelete() { return { get then() { throw undefined; } }; }',
};

const s = await sandboxServer(
  {
    models: Object.fromEntries(Object.keys(THROWERS).map((c) => [c, PEOPLE])),
    resources: Object.fromEntries(Object.entries(THROWERS).map(([c, code]) => [`${c}.ts`, code])),
  },
  { dev: true },
);
t.teardown(() => s.close());

for (const [collection, code] of Object.entries(THROWERS)) {
  t.test(`${collection}: ${code}`, async (t) => {
    const res = await fetch(s.at(`/resources/${collection}/1`), { method: 'DELETE' });
    t.equal(res.status, 500);
    t.equal(res.headers.get('x-ok'), null, 'the headers the handler set are not sent');
    const how = collection === 'async' || collection === 'rejected' ? 'rejected with' : 'threw';
    t.match(await body(res), { code: 'handler-error', detail: `Error: the handler ${how} undefined` });
    t.ok(s.log.some((l) => l === `svc: [app/${collection} delete] handler threw Error: the handler ${how} undefined`), 'the log has it');
  });
}

t.test('null and other values are failures the same way', async (t) => {
  s.write('resources/bare.ts', 'throw null;');
  t.match(await body(await fetch(s.at('/resources/bare/1'), { method: 'DELETE' })), { code: 'handler-error', detail: 'Error: a non-Error value was thrown: null' });
  s.write('resources/bare.ts', 'throw 0;');
  t.match(await body(await fetch(s.at('/resources/bare/1'), { method: 'DELETE' })), { code: 'handler-error', detail: 'Error: a non-Error value was thrown: 0' });
});
