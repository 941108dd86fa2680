// Attack: a Host header whose port is out of range (h:99999). The Host becomes the origin of
// absolute URLs (Location, Link, Atom ids), so a port no URL can carry made the server write
// URLs that lead nowhere; a port is 1–65535, anything else is 400 invalid-header (RFC 9112 §3.2).

import t from 'tap';
import { raw } from '../helpers/raw-http.ts';
import { appServer } from '../helpers/server.ts';

const server = await appServer(t, { models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });

const create = (host: string) => {
  const body = '{"text":"x"}';
  return raw(server.port, `POST /resources/notes HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
};

t.test('a port over 65535, or port 0, is 400 invalid-header and nothing is stored', async (t) => {
  for (const host of ['h:99999', 'h:65536', '[::1]:70000', 'h:0', '127.0.0.1:00000']) {
    const res = await create(host);
    t.equal(res.status, 400, host);
    t.match(res.head, /content-type: application\/problem\+json/i);
    t.notMatch(res.head, /location:/i);
    const problem = JSON.parse(res.body) as { code: string; detail: string };
    t.equal(problem.code, 'invalid-header');
    t.match(problem.detail, /Host/);
  }
  const list = await raw(server.port, 'GET /resources/notes?count=1 HTTP/1.1\r\nHost: h:99999\r\nConnection: close\r\n\r\n');
  t.equal(list.status, 400, 'no Link of a list carries it either');
  t.notMatch(list.head, /link:/i);
  const all = await raw(server.port, 'GET /resources/notes HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
  t.same(JSON.parse(all.body), [], 'nothing stored');
});

t.test('ports 1 to 65535 are served and written into URLs', async (t) => {
  for (const host of ['h:65535', 'h:1', '[::1]:8080', 'h']) {
    const res = await create(host);
    t.equal(res.status, 201, host);
    t.match(res.head, new RegExp(`\\r\\nlocation: http://${host.replace(/[[\]]/g, '\\$&')}/resources/notes/\\d+(\\r\\n|$)`, 'i'));
  }
});
