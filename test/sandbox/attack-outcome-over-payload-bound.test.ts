// Attack: response headers as large as the isolate can hold, in a response the handler neither
// writes, renders nor delegates. The data of every runtime call is bounded at 4 Mi characters of
// JSON (README "Limits": status and headers among it), and an echo() or delegate() with a 5 MiB
// header is refused; but the status and headers a handler ends with crossed unbounded: a handler
// that set a 20 MB header and returned had the host's event loop parse, check and send 20 MB (about
// 300 ms of the server's main thread and 60 ms stalls of every other tenant's requests, per
// request), as a 204 past maxOutputBytes too. They are now bounded like a call's data, for a
// handler that returns and one whose promise resolves: the request is 500 `handler-error` saying so.

import { request } from 'node:http';
import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const BIG = 5 * 1024 * 1024;
const s = await sandboxServer(
  {
    models: { returns: PEOPLE, status: PEOPLE, resolves: PEOPLE, fits: PEOPLE },
    resources: {
      'returns.ts': `export function onList() { zput('/request/headers/out/x-big', 'v'.repeat(${BIG})); }\n`,
      'status.ts': `export function onList() { zput('/request/status', 202); zput('/request/headers/out/x-big', 'v'.repeat(${BIG})); }\n`,
      'resolves.ts': `export async function onList() { await null; zput('/request/headers/out/x-big', 'v'.repeat(${BIG})); }\n`,
      'fits.ts': `export function onList() { zput('/request/status', 202); zput('/request/headers/out/x-fits', 'v'.repeat(${BIG / 2})); }\n`,
    },
  },
  { dev: true },
);
t.teardown(() => s.close());

/** A GET whose response headers may be large (fetch refuses over 16 KiB): status, header bytes and body. */
function get(path: string): Promise<{ status: number; headerBytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(s.at(path), { maxHeaderSize: 64 * 1024 * 1024 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headerBytes: res.rawHeaders.join('').length, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('a handler ending with headers over the bound is a 500 saying so, and they are not sent', async (t) => {
  for (const path of ['/resources/returns', '/resources/status', '/resources/resolves']) {
    const res = await get(path);
    t.equal(res.status, 500, `${path}: refused`);
    t.ok(res.headerBytes < 4096, `${path}: no large header was sent (${res.headerBytes} bytes of headers)`);
    const problem = JSON.parse(res.body);
    t.equal(problem.code, 'handler-error', path);
    t.match(problem.detail, /the status and headers the handler ended with are over 4194304 characters as JSON/, `${path}: the detail says what was refused`);
  }
});

t.test('headers within the bound are still sent as the handler set them', async (t) => {
  const res = await get('/resources/fits');
  t.equal(res.status, 202);
  t.ok(res.headerBytes > BIG / 2, 'the header was sent');
});
