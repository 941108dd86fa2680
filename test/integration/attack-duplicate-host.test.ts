// Attack: two Host headers. Node keeps the first and drops the rest, while a proxy in front may
// route or authorise by the last: the tenant served (and the origin of absolute URLs) would then
// differ from the one the proxy checked. RFC 9112 §3.2: more than one Host is 400.

import t from 'tap';
import { connect } from 'node:net';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeApp, startServer } from '../helpers/server.ts';

/** Sends raw bytes and returns the first response (status line, headers, body). */
function raw(port: number, data: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => {
      text += d;
      const end = text.indexOf('\r\n\r\n');
      const len = /content-length: (\d+)/i.exec(text.slice(0, end));
      if (end !== -1 && len && text.length >= end + 4 + Number(len[1])) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.slice(9, 12)), head: text.slice(0, end), body: text.slice(end + 4) });
    });
    socket.on('connect', () => socket.write(data));
  });
}

const template = makeApp({
  models: { notes: { fields: { text: { type: 'string' } } } },
  resources: { 'notes.ts': 'svc.delegate();\n' },
});
const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
cpSync(template.dir, join(tenants, 'acme'), { recursive: true });
cpSync(template.dir, join(tenants, 'globex'), { recursive: true });
const server = await startServer({ tenantsDir: tenants });
t.teardown(async () => {
  await server.close();
  template.cleanup();
  rmSync(tenants, { recursive: true, force: true });
});

t.test('two Host headers are 400 invalid-header, and nothing is stored', async (t) => {
  const body = '{"text":"smuggled"}';
  for (const hosts of [['globex', 'acme'], ['acme', 'acme'], ['acme.example.com', 'globex.example.com']]) {
    const res = await raw(
      server.port,
      `POST /resources/notes HTTP/1.1\r\n${hosts.map((h) => `Host: ${h}\r\n`).join('')}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    t.equal(res.status, 400, hosts.join(' + '));
    t.match(res.head, /content-type: application\/problem\+json/i);
    const problem = JSON.parse(res.body) as { code: string; detail: string };
    t.equal(problem.code, 'invalid-header');
    t.match(problem.detail, /Host/);
    t.notMatch(res.head, /location:/i);
  }
  for (const tenant of ['acme', 'globex']) {
    const list = await raw(server.port, `GET /resources/notes HTTP/1.1\r\nHost: ${tenant}\r\nConnection: close\r\n\r\n`);
    t.equal(list.status, 200, `${tenant} still answers`);
    t.same(JSON.parse(list.body), [], `nothing stored for ${tenant}`);
  }
});

t.test('one Host header is served as before', async (t) => {
  const res = await raw(server.port, 'GET /resources/notes HTTP/1.1\r\nHost: acme\r\nConnection: close\r\n\r\n');
  t.equal(res.status, 200);
});
