// With a few connections open, whole responses ended in one turn of the event loop are sent together
// at its end (src/server/response.ts `batched`). What a client sees must not change: every response
// whole and in its connection's order, the framing of HEAD, 204 and problems, and a response ended
// just before the connection is cut still sent.

import t from 'tap';
import { notesServer } from '../helpers/server.ts';
import { exchange, hdr, idleConnection, responses } from '../helpers/wire.ts';

const server = await notesServer(t);

// Three connections besides each test's own: the server batches from three open connections on.
const idle = await Promise.all([0, 1, 2].map(() => idleConnection(server.port)));
t.teardown(() => {
  for (const s of idle) s.destroy();
});

const post = (id: string, text: string) => {
  const body = JSON.stringify({ text });
  return `POST /resources/notes HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: ${id}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
};
const get = (id: string, path: string, method = 'GET') => `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: ${id}\r\n\r\n`;

t.test('many connections at once: every response whole, each the one its request asked for', async (t) => {
  const created = [];
  for (let i = 0; i < 8; i++) created.push((await (await fetch(server.at('/resources/notes'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `n${i}` }) })).json()) as { id: number; text: string });
  const answers = await Promise.all(
    [...created, ...created].map(async (n, i) => {
      const res = responses((await exchange(server.port, [get(`r${i}`, `/resources/notes/${n.id}`) + get(`s${i}`, '/resources/notes/999999')])).text);
      return { n, i, res };
    }),
  );
  for (const { n, i, res } of answers) {
    t.equal(res.length, 2, `connection ${i}: two responses`);
    t.equal(res[0]!.status, 200);
    t.ok(res[0]!.complete);
    t.equal(hdr(res[0]!.head, 'x-request-id'), `r${i}`);
    t.equal((JSON.parse(res[0]!.body) as { text: string }).text, n.text, `connection ${i} got its own member`);
    t.equal(res[1]!.status, 404);
    t.equal(hdr(res[1]!.head, 'x-request-id'), `s${i}`);
    t.equal((JSON.parse(res[1]!.body) as { code: string }).code, 'member-not-found', 'the problem body whole');
  }
});

t.test('pipelined on one connection: responses in order, 204 and HEAD framed as such', async (t) => {
  const made = (await (await fetch(server.at('/resources/notes'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"p"}' })).json()) as { id: number };
  const path = `/resources/notes/${made.id}`;
  // HEAD last: the split reads a Content-Length as a body's.
  const res = responses((await exchange(server.port, [get('a', path) + get('c', path, 'DELETE') + get('d', path) + get('e', '/resources/notes', 'HEAD')])).text);
  t.same(res.map((r) => [hdr(r.head, 'x-request-id'), r.status]), [['a', 200], ['c', 204], ['d', 404], ['e', 200]]);
  t.equal(res[1]!.body, '', '204: no body');
  t.equal(res[3]!.body, '', 'HEAD: no body');
  t.ok(Number(hdr(res[3]!.head, 'content-length')) > 0, 'HEAD: the Content-Length GET would send');
});

t.test('a valid POST, then bytes the parser refuses: the POST is answered, then the connection closes', async (t) => {
  const { text, closed } = await exchange(server.port, [post('p1', 'kept') + 'GARBAGE LINE\r\n\r\n']);
  const res = responses(text);
  t.equal(res[0]!.status, 201);
  t.equal(hdr(res[0]!.head, 'x-request-id'), 'p1');
  t.ok(res[0]!.complete, 'the whole body');
  t.ok(closed, 'then the connection closes');
});

t.test('Connection: close: the response whole, then the connection closes', async (t) => {
  const { text, closed } = await exchange(server.port, ['GET /resources/notes HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n']);
  const [res] = responses(text);
  t.equal(res!.status, 200);
  t.ok(res!.complete);
  t.ok(closed);
});
