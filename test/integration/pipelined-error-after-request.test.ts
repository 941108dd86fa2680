// A complete, valid request followed on the same connection by bytes the parser refuses: the valid
// request was served (the member stored) yet answered 400 malformed-request under its own request
// id, as the 'clientError' handler answered through the latest request's response. It is now
// answered for what it did, and the connection closes after it (RFC 9112 §9.3.2, §9.6).

import t from 'tap';
import { notesServer } from '../helpers/server.ts';
import { exchange, responses, hdr } from '../helpers/wire.ts';

const server = await notesServer(t);
const body = '{"text":"a"}';
const post = (id: string, extra = '') => `POST /resources/notes HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: ${id}\r\n${extra}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const count = async () => ((await (await fetch(server.at('/resources/notes'))).json()) as unknown[]).length;

t.test('valid POST then garbage: the POST is answered for what it did', async (t) => {
  const before = await count();
  const res = responses((await exchange(server.port, [post('p1') + 'GARBAGE LINE\r\n\r\n'])).text);
  const stored = (await count()) - before;
  t.equal(hdr(res[0]!.head, 'x-request-id'), 'p1');
  t.equal(res[0]!.status, stored === 1 ? 201 : 400, `first response ${res[0]!.status} while ${stored} member(s) were stored`);
  t.equal(res[0]!.status, 201, 'the valid POST is answered 201');
});

t.test('POST with Connection: close, then another request: the POST is 201', async (t) => {
  // RFC 9112 §9.6: answer the request that carried "close", then close; process nothing after it.
  const before = await count();
  const res = responses((await exchange(server.port, [post('c1', 'Connection: close\r\n') + 'GET /resources/notes HTTP/1.1\r\nHost: localhost\r\n\r\n'])).text);
  const stored = (await count()) - before;
  t.equal(res[0]!.status, stored === 1 ? 201 : 400, `first response ${res[0]!.status} while ${stored} member(s) were stored`);
  t.equal(res[0]!.status, 201);
});

t.test('GET with Connection: close then another request: the GET is answered 200', async (t) => {
  const get = 'GET /resources/notes HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: g1\r\nConnection: close\r\n\r\n';
  const res = responses((await exchange(server.port, [get + get])).text);
  t.equal(res[0]!.status, 200, 'the request carrying close is served, the one after it ignored');
});
