// Pipelined requests were processed in parallel, also when some were unsafe. RFC 9112 §9.3.2
// allows parallel processing of a pipeline only when all its requests are safe: a GET pipelined
// before a POST must answer with the state before the POST, as if the requests came one by one.

import t from 'tap';
import { appServer } from '../helpers/server.ts';
import { exchange, responses } from '../helpers/wire.ts';

const server = await appServer(t, {
  models: { notes: { fields: { text: { type: 'text' } } }, report: { fields: { text: { type: 'text' } } } },
  resources: {
    'notes.ts': 'svc.delegate();\n',
    // A list that takes a little CPU before it reads the notes (well within the 100 ms limit).
    'report.ts': "export function onList() { const until = Date.now() + 40; while (Date.now() < until) {} echo(JSON.stringify(svc.collection('notes').list({}))); }\n",
  },
});
const H = 'Host: localhost\r\n';

t.test('GET, then POST, pipelined: the GET does not see the member the POST creates', async (t) => {
  const body = '{"text":"later"}';
  const res = responses((await exchange(server.port, [`GET /resources/report HTTP/1.1\r\n${H}\r\nPOST /resources/notes HTTP/1.1\r\n${H}Connection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`])).text);
  t.equal(res.length, 2);
  t.equal(res[1]!.status, 201, 'the POST created a member');
  t.equal(res[0]!.status, 200);
  t.same(JSON.parse(res[0]!.body), [], 'the GET, answered before the POST, lists no member');
});

t.test('POST, then GETs, pipelined: the GETs see the member; GETs alone run side by side', async (t) => {
  const body = '{"text":"first"}';
  const get = `GET /resources/notes HTTP/1.1\r\n${H}\r\n`;
  const res = responses((await exchange(server.port, [`POST /resources/notes HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` + get + get + `GET /resources/notes HTTP/1.1\r\n${H}Connection: close\r\n\r\n`])).text);
  t.same(res.map((r) => r.status), [201, 200, 200, 200]);
  for (const r of res.slice(1)) t.ok((JSON.parse(r.body) as { text: string }[]).some((m) => m.text === 'first'), 'a GET after the POST lists its member');
});
