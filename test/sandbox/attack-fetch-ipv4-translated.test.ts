// A tenant lists an IPv6 address that carries an IPv4 one in a form the not-public list did not
// know: IPv4-translated (::ffff:0:a.b.c.d, SIIT, RFC 2765), which is not the IPv4-mapped
// ::ffff:a.b.c.d that node:net's BlockList reads as IPv4. `http://[::ffff:0:a9fe:a9fe]` is the
// metadata service wherever a translator sits on the way, and `[::ffff:0:7f00:1]` loopback. It was
// taken for a public address: with --tenants and the default --fetch-private (none) the server
// connected to it (EHOSTUNREACH here, the translator's IPv4 network elsewhere). The same for a host
// name resolving to it, and for deprecated site-local fec0::/10 (fec0:0:0:ffff::1 is a DNS server
// of old networks). Both are refused now, as NAT64 and the other IPv4-carrying forms are.

import { request } from 'node:http';
import t from 'tap';
import { isPublicAddress } from '../../src/sandbox/ops/fetch.ts';
import { makeApp, startServer } from '../helpers/server.ts';

t.test('IPv4-translated and site-local addresses are not public', async (t) => {
  for (const a of ['::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe', '::ffff:0:a00:1', '0:0:0:0:ffff:0:c0a8:1', '::ffff:0:0:0', 'fec0::1', 'fec0:0:0:ffff::1', 'feff::1']) {
    t.notOk(isPublicAddress(a), a);
  }
  // Next to them, and still public: the mapped form of a public address, and global unicast.
  for (const a of ['::ffff:101:101', '::fffe:0:101:101', '2606:4700:4700::1111', 'ff0::1']) t.ok(isPublicAddress(a), a);
});

const TARGETS = ['http://[::ffff:0:7f00:1]:9', 'http://[::ffff:0:a9fe:a9fe]', 'http://[fec0:0:0:ffff::1]'];
const CALLER = `export async function onList() {
  try {
    const r = await fetch(zget('/request/params/to'));
    zput('/request/json/output', { status: r.status });
  } catch (e) {
    zput('/request/json/output', { error: e.name + ': ' + e.message });
  }
  render();
}
`;

t.test('with --tenants, by default, a listed IPv4-translated or site-local address is refused before any connection', async (t) => {
  const root = makeApp({
    files: {
      'acme/models/calls.json': JSON.stringify({ fields: { name: { type: 'string' } } }),
      'acme/resources/calls.ts': CALLER,
      // A short timeout, so that a connection attempt (the defect) fails fast wherever the address is routed.
      'acme/svc.json': JSON.stringify({ fetch: { allow: TARGETS }, limits: { fetchTimeoutMs: 1000 } }),
    },
  });
  t.teardown(() => root.cleanup());
  const server = await startServer({ tenantsDir: root.dir, log: () => {} });
  t.teardown(() => server.close());
  for (const to of TARGETS) {
    const json = await new Promise<{ error?: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: server.port, path: `/resources/calls?to=${encodeURIComponent(`${to}/x`)}`, headers: { host: 'acme.localhost' }, agent: false },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve(JSON.parse(text)));
        },
      );
      req.on('error', reject);
      req.end();
    });
    const address = new URL(to).hostname.slice(1, -1);
    t.equal(
      json.error,
      `Error: fetch(): ${address} is not a public address, and this server does not let handlers reach it; listing it in svc.json is not enough: the server's operator decides which private networks handlers may reach (svc serve --fetch-private, SVC_FETCH_PRIVATE)`,
      to,
    );
  }
});
