// RFC 9112 §3.2.2: "A server MUST accept the absolute-form in requests", and an origin server then
// takes the host from the target. svc matched origin-form paths only: a GET of
// `http://host/resources/c` for a served collection was 404 "Nothing is served at http://…". A Host
// header naming another host than the target is refused (tenants are told apart by host).

import t from 'tap';
import { appServer, send, tenantsServer } from '../helpers/server.ts';
import { raw } from '../helpers/raw-http.ts';

const FILES = { models: { notes: { fields: { title: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate()' } } as const;

const get = (port: number, target: string, host: string) => raw(port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);

t.test('an absolute-form request target names the same resource as its path', async (t) => {
  const server = await appServer(t, FILES);
  t.equal((await send(server.at('/resources/notes'), 'POST', { title: 'a' })).status, 201);
  const port = Number(new URL(server.url).port);
  const origin = await get(port, '/resources/notes?title=a', `127.0.0.1:${port}`);
  t.equal(origin.status, 200, 'origin-form: 200');
  const absolute = await get(port, `http://127.0.0.1:${port}/resources/notes?title=a`, `127.0.0.1:${port}`);
  t.equal(absolute.status, 200, `absolute-form: 200 (got ${absolute.status} ${absolute.body.slice(0, 120)})`);
  t.same(JSON.parse(absolute.body), JSON.parse(origin.body), 'the same list');
  t.equal((await get(port, `HTTP://127.0.0.1:${port}/resources/notes/1`, `127.0.0.1:${port}`)).status, 200, 'the scheme in any case');
  const noHost = await raw(port, `GET http://127.0.0.1:${port}/resources/notes/1 HTTP/1.1\r\nConnection: close\r\n\r\n`);
  t.equal(noHost.status, 200, "without Host, the target's host is the request's");
  const bad = await get(port, 'http://a@b/resources/notes', 'a@b');
  t.equal(bad.status, 400, "a target whose authority is not a plain host is 400");
  t.match(bad.body, /request target's host/);
});

t.test("the target's host picks the tenant and the origin of links; a Host naming another host is refused", async (t) => {
  const server = await tenantsServer(t, ['acme', 'globex'], FILES);
  const post = (host: string) =>
    raw(server.port, `POST http://acme.localhost:${server.port}/resources/notes HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 13\r\nConnection: close\r\n\r\n{"title":"a"}`);
  // A proxy that checked globex's access by Host and passed the line on must not reach acme's data.
  const crossed = await post('globex.localhost');
  t.equal(crossed.status, 400, 'Host globex, target acme: 400');
  t.match(crossed.body, /names another host than the request target/);
  const created = await post(`ACME.localhost:${server.port}`);
  t.equal(created.status, 201, 'the same host (in any case) in both: served');
  t.match(created.head, new RegExp(`location: http://acme\\.localhost:${server.port}/resources/notes/1`, 'i'), "Location has the target's origin");
  const acme = await get(server.port, '/resources/notes', 'acme.localhost');
  const globex = await get(server.port, '/resources/notes', 'globex.localhost');
  t.equal(JSON.parse(acme.body).length, 1, "stored in the target's tenant");
  t.equal(JSON.parse(globex.body).length, 0, 'nothing in the other');
});
