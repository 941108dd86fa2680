// Attack: one client poisons V8's JSON.parse inside a handler isolate for the next client. On Node
// 24's V8, once a parse in an isolate made an object whose names were `text` then `\` (a client's
// body `{"text":"a","\\":1}`, handed to the handler as /request/body), the isolate read an escaped
// name in that place of a later text as `\`: the next client's `{"text":"b","\"":1}` reached the
// handler as `{text, "\\"}` (https://github.com/nodejs/node/issues/63785). The runtime parsed the
// request, the host's replies and a fetch response's json() with that JSON.parse; now it reads
// escaped names around it, as the host does (test/sandbox/attack-json-escaped-name-cache.test.ts).

import t, { type Test } from 'tap';
import { send } from '../helpers/server.ts';
import { upstream } from '../helpers/upstream.ts';
import { body, sandboxServer } from './harness.ts';

// An upstream API that answers with the text in `?text=`: names like `"caf\u00e9"`, as Python's
// json.dumps writes every name outside ASCII.
const UP = `http://127.0.0.1:${await upstream(t, (req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(new URL(req.url!, 'http://upstream').searchParams.get('text'));
})}`;

const app = await sandboxServer({
  models: { notes: { fields: { text: { type: 'string' } } } },
  resources: {
    // Answers with what it was given, as its own JSON.stringify writes it (every name as it is):
    // the request's body, or a fetch response's json(). As text, because this test's process is the
    // server's, and its JSON.parse is poisoned too.
    'notes.ts': `
      export function onCreate() {
        zput('/request/json/output', { text: JSON.stringify(zget('/request/body')) });
        render();
      }
      export async function onList() {
        const r = await fetch(${JSON.stringify(UP)} + '/?text=' + encodeURIComponent(String(zget('/request/params/text'))));
        zput('/request/json/output', { text: JSON.stringify(await r.json()) });
        render();
      }
    `,
  },
  files: { 'svc.json': JSON.stringify({ fetch: { allow: [UP] } }) },
});
t.teardown(() => app.close());
const url = app.at('/resources/notes');

/** What the handler was given as a client's body `text`, as JSON. */
async function posted(t: Test, text: string): Promise<string> {
  const res = await send(url, 'POST', text);
  t.equal(res.status, 200, `${text} reached the handler`);
  return (await body(res)).text;
}

/** What the handler read from an upstream's answer `text`, as JSON. */
async function fetched(t: Test, text: string): Promise<string> {
  const res = await fetch(`${url}?text=${encodeURIComponent(text)}`);
  t.equal(res.status, 200, `${text} was fetched`);
  return (await body(res)).text;
}

t.test("a client's body with an escaped name reaches the handler as the client wrote it", async (t) => {
  t.equal(await posted(t, '{"text":"a","\\\\":1}'), JSON.stringify({ text: 'a', '\\': 1 }), 'the poison is read as written');
  t.equal(await posted(t, '{"text":"b","\\"":1}'), JSON.stringify({ text: 'b', '"': 1 }), 'and so is the next body: " is not read as \\');
  t.equal(await posted(t, '{"text":"c","\\n":2}'), JSON.stringify({ text: 'c', '\n': 2 }), 'nor is a line feed');
  t.equal(await posted(t, '{"text":"d\\"\\n","x":3}'), JSON.stringify({ text: 'd"\n', x: 3 }), 'escapes in values only: JSON.parse, as before');
});

t.test("a fetch response's json() reads escaped names as the upstream wrote them", async (t) => {
  t.equal(await fetched(t, '{"caf\\\\":1}'), JSON.stringify({ 'caf\\': 1 }), 'the poison, from an upstream');
  t.equal(await fetched(t, '{"caf\\u00e9":1}'), JSON.stringify({ café: 1 }), 'é is not read as \\');
  t.equal(await fetched(t, '[{"caf\\u00e9" : {"caf\\u00e9":"\\u00e9"}}, {"tea":2}]'), JSON.stringify([{ café: { café: 'é' } }, { tea: 2 }]), 'nested, white space before the colon');
  const res = await fetch(`${url}?text=${encodeURIComponent('{"caf\\u00e9":1,}')}`);
  t.equal(res.status, 500, 'text that is not JSON still rejects json()');
});
