// Attack: one request poisons V8's JSON.parse for the host's reading of handlers' runtime calls. On
// Node 24's V8, once any JSON in the process parsed as an object with names `text` then `\` (a
// client's body `{"text":"a","\\":1}`, refused as an unknown field), the server read an escaped name
// in that place of a handler's payload as `\`: a handler's member `{text, '"': 1}` was reported as
// having the field "\", and (after `{"text":"a","\\":1,"n":1}`) `{text, '"': 2, '\\': 3}` lost a name
// (https://github.com/nodejs/node/issues/63785). Request bodies were already read around that cache
// (test/integration/attack-json-escaped-name-cache.test.ts); payloads now are too, by the same reader.

import t, { type Test } from 'tap';
import { send } from '../helpers/server.ts';
import { body, sandboxServer } from './harness.ts';

const app = await sandboxServer({
  models: { notes: { fields: { text: { type: 'string' }, n: { type: 'integer' } } } },
  resources: {
    // The members are the handler's own literals: no parse in the isolate (whose JSON.parse the
    // poison's body, copied in as /request/body, reaches too) is between them and the host.
    'notes.ts': `
      const MEMBERS: Record<string, object> = {
        quote: { text: 'b', '"': 1 },
        both: { text: 'b', '"': 2, '\\\\': 3 },
        plain: { text: 'line one\\nline "two"', n: 5 },
      };
      const member = () => MEMBERS[String(zget('/request/params/member'))]!;
      export function onList() {
        if (!zcontains('/request/params/member')) return svc.delegate();
        try {
          svc.collection('notes').create(member());
          zput('/request/json/output', { created: true });
        } catch (e) {
          zput('/request/json/output', { message: (e as Error).message });
        }
        render();
      }
      export function onCreate() {
        if (zcontains('/request/params/member')) zput('/request/body', member());
        svc.delegate();
      }
    `,
  },
});
t.teardown(() => app.close());
const url = app.at('/resources/notes');
const withMember = (name: 'quote' | 'both' | 'plain') => `${url}?member=${name}`;

/** Poisons the process's JSON.parse with a client's body (any parse would do), refused as it always was. */
async function poison(t: Test, text: string): Promise<void> {
  const res = await send(url, 'POST', text);
  t.equal(res.status, 400, `the poison ${text} is refused`);
  t.equal((await body(res)).code, 'invalid-member');
}

t.test("a model-API member's escaped name reaches the host as the handler wrote it", async (t) => {
  await poison(t, '{"text":"a","\\\\":1}');
  const res = await fetch(withMember('quote'));
  t.equal(res.status, 200);
  t.same(await body(res), { message: 'svc.collection("notes").create(): Invalid member: " is not a field of this model' });
});

t.test("delegate(): the handler's body keeps every name, none read as another", async (t) => {
  // Read through this cache, '"' became "\" and its value was lost under the next "\".
  await poison(t, '{"text":"a","\\\\":1,"n":1}');
  const res = await send(withMember('both'), 'POST', { text: 'ignored' });
  t.equal(res.status, 400);
  const problem = await body(res);
  t.equal(problem.code, 'invalid-member');
  t.same(problem.errors.map((e: { field: string }) => e.field).sort(), ['"', '\\'], 'both unknown names are listed');
});

t.test('a member without such names is stored as before; nothing else was', async (t) => {
  const res = await send(withMember('plain'), 'POST', { text: 'ignored' });
  t.equal(res.status, 201);
  t.match(await body(res), { text: 'line one\nline "two"', n: 5 });
  const stored = await body(await fetch(url, { headers: { accept: 'application/json' } }));
  t.equal(stored.length, 1);
});
