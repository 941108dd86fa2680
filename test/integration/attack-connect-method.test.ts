// Attack: CONNECT, the method that asks a server to open a tunnel. node:http hands it to a
// 'connect' listener and, with none, closes the connection without a word; svc is no proxy,
// and SPEC §4 says a method it does not serve is 405 with an Allow header, as a problem.

import t, { type Test } from 'tap';
import { raw, type Raw } from '../helpers/raw-http.ts';
import { appServer } from '../helpers/server.ts';

function check405(t: Test, res: Raw, allow: string): void {
  t.equal(res.status, 405);
  t.match(res.head, /\r\ncontent-type: application\/problem\+json\r\n/i);
  t.match(res.head, new RegExp(`\\r\\nallow: ${allow}(\\r\\n|$)`, 'i'));
  t.match(res.head, /\r\nconnection: close(\r\n|$)/i, 'the connection closes: no tunnel follows');
  const problem = JSON.parse(res.body) as { code: string; status: number; requestId: string };
  t.equal(problem.code, 'method-not-allowed');
  t.equal(problem.status, 405);
  t.equal(/\r\nx-request-id: ([^\r]+)/i.exec(res.head)?.[1], problem.requestId);
}

const server = await appServer(t, { models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });

t.test('CONNECT to a host (a tunnel) is 405 with the methods the server serves', async (t) => {
  const res = await raw(server.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
  check405(t, res, 'GET, HEAD, PUT, POST, DELETE');
  t.match(JSON.parse(res.body).detail, /CONNECT/);
});

t.test('CONNECT to a URL of the server is 405 like any other unknown method', async (t) => {
  // Allow: what that URL serves (the one-line svc.delegate() handler's methods there).
  for (const [path, allow] of [['/resources/notes', 'GET, POST, HEAD'], ['/resources/notes/1', 'GET, PUT, DELETE, HEAD']] as const) {
    const connectRes = await raw(server.port, `CONNECT ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const trace = await raw(server.port, `TRACE ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    check405(t, connectRes, allow);
    t.equal(trace.status, 405, 'as TRACE is');
    t.equal(JSON.parse(connectRes.body).detail, JSON.parse(trace.body).detail.replace('TRACE', 'CONNECT'));
  }
  check405(t, await raw(server.port, 'CONNECT /healthz HTTP/1.1\r\nHost: x\r\n\r\n'), 'GET, HEAD');
});

t.test('the server serves as before after a CONNECT', async (t) => {
  await raw(server.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
  const res = await fetch(server.at('/resources/notes'));
  t.equal(res.status, 200);
});
