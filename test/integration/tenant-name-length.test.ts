// A tenant is the first label of the Host, and a label is at most 63 characters (RFC 1035
// §2.3.4). A directory with a longer name was served until its SQLite file's name
// (`svc.<tenant>.sqlite-wal`) passed a file name's 255 bytes, from about 240 characters: then
// every request of that tenant was 503 store-unavailable, and nothing said why. Now such a
// directory is no tenant (named in the start-up summary and by `svc check`): 404 tenant-not-found.

import t from 'tap';
import { getWithHost, raw } from '../helpers/raw-http.ts';
import { tenantsServer } from '../helpers/server.ts';

const longest = 'a'.repeat(62) + '9';
// A Host name is at most 253 characters: `<245 characters>.x` is one.
const names = [longest, 'b'.repeat(64), 'c'.repeat(245)];
const server = await tenantsServer(t, names, { models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });

t.test('a tenant named by a label of 63 characters is served, its data kept in its own file', async (t) => {
  const body = JSON.stringify({ text: 'kept' });
  const created = await raw(server.port, `POST /resources/notes HTTP/1.1\r\nHost: ${longest}.example.com\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  t.equal(created.status, 201, created.body);
  const res = await getWithHost(server.port, `${longest}.example.com`, '/resources/notes/1');
  t.equal(res.status, 200);
  t.match(JSON.parse(res.text), { text: 'kept' });
});

t.test('a directory named longer than a label is no tenant: 404, not a store that cannot open', async (t) => {
  for (const name of names.slice(1)) {
    const res = await getWithHost(server.port, `${name}.x`, '/resources/notes');
    t.equal(res.status, 404, `${name.length} characters`);
    t.match(JSON.parse(res.text), { code: 'tenant-not-found' }, `${name.length} characters`);
  }
});
