// Attack: requests node:http itself refuses (no Host on HTTP/1.1, a malformed header line, two
// Content-Length headers, a NUL in a header, headers over its size limit, a request that never
// finishes arriving). Node answered them with a bare status and an empty body; SPEC §11: every
// error the server produces is application/problem+json, with a code a client can act on.

import t, { type Test } from 'tap';
import { raw, type Raw } from '../helpers/raw-http.ts';
import { makeApp, startServer } from '../helpers/server.ts';

/** The problem a response carries, after checking it is one with this status and code. */
function problemOf(t: Test, res: Raw, status: number, code: string): { detail: string; requestId: string } {
  t.equal(res.status, status, `status ${status}`);
  t.match(res.head, /\r\ncontent-type: application\/problem\+json\r\n/i, 'a problem');
  t.match(res.head, /\r\nconnection: close(\r\n|$)/i, 'Connection: close');
  const problem = JSON.parse(res.body) as { status: number; code: string; detail: string; title: string; requestId: string };
  t.equal(problem.status, status);
  t.equal(problem.code, code);
  t.equal(/\r\nx-request-id: ([^\r]+)/i.exec(res.head)?.[1], problem.requestId, 'the request id in the header and the body');
  return problem;
}

const app = makeApp({
  models: { notes: { fields: { text: { type: 'string' } } } },
  resources: { 'notes.ts': 'svc.delegate();\n' },
});
const server = await startServer({ appDir: app.dir, limits: { requestTimeoutMs: 300 } });
t.teardown(async () => {
  await server.close();
  app.cleanup();
});

t.test('an HTTP/1.1 request without Host is 400 invalid-header, and nothing is stored', async (t) => {
  const body = '{"text":"no host"}';
  const res = await raw(server.port, `POST /resources/notes HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  t.match(problemOf(t, res, 400, 'invalid-header').detail, /no Host header/);
  const get = await raw(server.port, 'GET /resources/notes HTTP/1.1\r\nConnection: close\r\n\r\n');
  t.match(problemOf(t, get, 400, 'invalid-header').detail, /Host/);
  const list = await raw(server.port, 'GET /resources/notes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  t.equal(list.status, 200);
  t.same(JSON.parse(list.body), [], 'nothing stored');
});

t.test('HTTP/1.0 may still leave Host out', async (t) => {
  const res = await raw(server.port, 'GET /resources/notes HTTP/1.0\r\n\r\n');
  t.equal(res.status, 200);
  t.same(JSON.parse(res.body), []);
});

t.test('requests node:http cannot parse are 400 malformed-request problems', async (t) => {
  const cases = {
    'a header line without a colon': 'GET /resources/notes HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n',
    'two Content-Length headers': 'POST /resources/notes HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    'a NUL in a header value': 'GET /resources/notes HTTP/1.1\r\nHost: x\r\nX-Note: a\0b\r\n\r\n',
    'a space in the request target': 'GET /resources/no tes HTTP/1.1\r\nHost: x\r\n\r\n',
    'a chunked body with a bad chunk size': 'POST /resources/notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
  };
  for (const [name, data] of Object.entries(cases)) {
    await t.test(name, async (t) => {
      const problem = problemOf(t, await raw(server.port, data), 400, 'malformed-request');
      t.match(problem.detail, /HTTP\/1\.1/);
    });
  }
  t.equal((await raw(server.port, 'GET /resources/notes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status, 200, 'the server still serves');
});

t.test('headers over the size limit are 431 headers-too-large', async (t) => {
  const res = await raw(server.port, `GET /resources/notes HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  t.match(problemOf(t, res, 431, 'headers-too-large').detail, /headers/);
  t.match(res.head, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
});

t.test('a request that does not arrive in time is 408 request-timeout', async (t) => {
  const headers = await raw(server.port, 'GET /resources/notes HTTP/1.1\r\nHost: x\r\n');
  t.match(problemOf(t, headers, 408, 'request-timeout').detail, /300 ms/);
  t.match(headers.head, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  // A body cut short: the request was being served, so the answer is that request's own.
  const body = await raw(server.port, 'POST /resources/notes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":');
  problemOf(t, body, 408, 'request-timeout');
  const list = await raw(server.port, 'GET /resources/notes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  t.same(JSON.parse(list.body), [], 'nothing stored');
});

t.test('a URL within a raised --max-url is measured against it, not refused as a head over 16 KiB', async (t) => {
  // Node's parser bounds the request line and headers at 16 KiB by default, and it stops a request
  // before svc sees its URL: with --max-url 30000, a URL of 20,000 bytes was 431 headers-too-large.
  const wide = await startServer({ appDir: app.dir, limits: { maxUrlBytes: 30_000 } });
  t.teardown(() => wide.close());
  const get = (path: string, headers = '') => raw(wide.port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers}\r\n`);
  const within = await get(`/resources/notes?text=${'a'.repeat(20_000)}`);
  t.equal(within.status, 200, 'a URL of 20,000 bytes: served');
  problemOf(t, await get(`/resources/notes?text=${'a'.repeat(31_000)}`), 414, 'uri-too-long');
  // The headers beside it keep their 8 KiB; past the URL's bound and those, 431 names the bytes.
  const over = problemOf(t, await get(`/resources/notes?text=${'a'.repeat(20_000)}`, `X-Big: ${'b'.repeat(20_000)}\r\n`), 431, 'headers-too-large');
  t.match(over.detail, /over 38192 bytes/);
});
