// Request framing node:http let through or answered itself:
// - `Expect` other than 100-continue: Node's bare 417, no problem body, no X-Request-Id (SPEC §11).
// - `Expect: 100-continue` on a request refused from its head alone (a Content-Length over
//   --max-body): Node sent 100 Continue first, inviting the body the server then refused unread.
// - `Transfer-Encoding: gzip, chunked`: a transfer coding the server does not undo; the still-coded
//   body was read as if plain and a member stored from it (RFC 9112 §6.1: 501).
// - A request asking to upgrade, with another pipelined behind it: Node drops the second, and the
//   connection then idled; it now closes after the first answer, so that the client sends it again.

import t from 'tap';
import { connect } from 'node:net';
import { notesServer } from '../helpers/server.ts';
import { exchange, hdr, responses } from '../helpers/wire.ts';

const server = await notesServer(t, 'text', { limits: { maxBodyBytes: 1000 } });
const H = 'Host: localhost\r\nConnection: close\r\n';

t.test('Expect: something-else is answered with a problem', async (t) => {
  const [res] = responses((await exchange(server.port, [`GET /resources/notes HTTP/1.1\r\n${H}X-Request-Id: e1\r\nExpect: something-else\r\n\r\n`])).text);
  t.equal(res!.status, 417);
  t.equal(hdr(res!.head, 'content-type'), 'application/problem+json', 'a problem body');
  t.equal(hdr(res!.head, 'x-request-id'), 'e1', 'the request id');
  t.match(JSON.parse(res!.body), { code: 'expectation-failed', requestId: 'e1' });
});

t.test('Expect: 100-continue with a body over the limit is 413 without 100 Continue', async (t) => {
  const res = responses((await exchange(server.port, [`POST /resources/notes HTTP/1.1\r\n${H}Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`])).text);
  t.equal(res[0]!.status, 413, 'no 100 Continue invites a body that will be refused');
  t.equal(res.length, 1);
});

t.test('Expect: 100-continue with a body the server takes: 100 Continue, then the body, then 201', async (t) => {
  const body = '{"text":"continued"}';
  const text = await new Promise<string>((resolve) => {
    let got = '';
    let sent = false;
    const s = connect(server.port, '127.0.0.1', () => s.write(`POST /resources/notes HTTP/1.1\r\n${H}Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`));
    s.setEncoding('latin1');
    s.on('data', (d: string) => {
      got += d;
      // The body goes only once the server has asked for it.
      if (!sent && got.includes('100 Continue\r\n\r\n')) {
        sent = true;
        s.write(body);
      }
    });
    s.on('close', () => resolve(got));
    s.on('error', () => {});
  });
  const res = responses(text);
  t.same(res.map((r) => r.status), [100, 201]);
  t.match(JSON.parse(res[1]!.body), { text: 'continued' });
});

t.test('Transfer-Encoding: gzip, chunked is 501, not read as a plain body', async (t) => {
  const body = '{"text":"not gzip"}';
  const before = ((await (await fetch(server.at('/resources/notes'))).json()) as unknown[]).length;
  const [res] = responses((await exchange(server.port, [`POST /resources/notes HTTP/1.1\r\n${H}Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`])).text);
  t.equal(res!.status, 501);
  t.equal(JSON.parse(res!.body).code, 'transfer-coding-not-implemented');
  t.equal(((await (await fetch(server.at('/resources/notes'))).json()) as unknown[]).length, before, 'nothing stored');
});

t.test('a request asking to upgrade is answered, and its connection closed after it', async (t) => {
  const upgrade = 'GET /resources/notes HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n';
  const { text, closed } = await exchange(server.port, [upgrade + 'GET /resources/notes HTTP/1.1\r\nHost: localhost\r\n\r\n'], { idleMs: 20_000 });
  const res = responses(text);
  t.equal(res[0]!.status, 200, 'the first is answered');
  t.ok(closed, 'the connection closes (the client sends what went unanswered again), rather than idle');
  t.match(hdr(res[0]!.head, 'connection') ?? '', /close/i);
});
