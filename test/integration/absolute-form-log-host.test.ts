// The absolute-form target (server.ts handle(), ABSOLUTE_FORM): the request log's `path` was the
// whole target, credentials of a refused userinfo included; a Host naming the same host in another
// spelling (a trailing dot, the scheme's default port) was refused as another host.

import t from 'tap';
import type { LogRecord } from '../../src/exchange/log.ts';
import { raw } from '../helpers/raw-http.ts';
import { makeApp, startServer } from '../helpers/server.ts';

const app = makeApp({ models: { notes: { fields: { title: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate()' } });
/** Request-log records (those with a status), each handed to the first waiter, else kept. */
const logged: LogRecord[] = [];
const waiting: ((r: LogRecord) => void)[] = [];
const server = await startServer({
  appDir: app.dir,
  log: (r) => {
    if (r.fields.status === undefined) return;
    const w = waiting.shift();
    if (w) w(r);
    else logged.push(r);
  },
});
t.teardown(async () => {
  await server.close();
  app.cleanup();
});
const port = server.port;
const nextRecord = (): Promise<LogRecord> => (logged.length > 0 ? Promise.resolve(logged.shift()!) : new Promise((resolve) => waiting.push(resolve)));

t.test("README 'Request log': path is the path, without the query string, whatever the form of the target", async (t) => {
  const res = await raw(port, `GET http://localhost:${port}/resources/notes?title=a HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`);
  t.equal(res.status, 200);
  t.equal((await nextRecord()).fields.path, '/resources/notes');
  // RFC 9110 §4.2.4: userinfo is refused (400), and the credentials it carries are not logged.
  const creds = await raw(port, `GET http://alice:s3cret@localhost:${port}/resources/notes HTTP/1.1\r\nConnection: close\r\n\r\n`);
  t.equal(creds.status, 400);
  const record = await nextRecord();
  t.equal(record.fields.path, '/resources/notes');
  t.notMatch(JSON.stringify(record), /s3cret/, 'the password is not in the request log');
});

t.test("a Host naming the target's host in another spelling is served", async (t) => {
  const dot = await raw(port, `GET http://localhost:${port}/resources/notes HTTP/1.1\r\nHost: localhost.:${port}\r\nConnection: close\r\n\r\n`);
  t.equal(dot.status, 200, `Host localhost.:${port}, target localhost:${port}: one host (got ${dot.status} ${dot.body.slice(0, 100)})`);
  const p80 = await raw(port, `GET http://localhost:80/resources/notes HTTP/1.1\r\nHost: LOCALHOST\r\nConnection: close\r\n\r\n`);
  t.equal(p80.status, 200, `Host LOCALHOST, target localhost:80 (http's default port, RFC 9110 §4.2.3): one authority (got ${p80.status})`);
  const other = await raw(port, `GET http://localhost:81/resources/notes HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
  t.equal(other.status, 400, 'another port is another host');
  await nextRecord();
  await nextRecord();
  await nextRecord();
});
