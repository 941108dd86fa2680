// A tenant lists a non-public address in its own svc.json (`http://127.0.0.1:<port>`,
// `http://169.254.169.254`, or the same address spelt another way) to reach the server's own
// port, the host's network or the cloud metadata service. With --tenants the tenant is not the
// operator: only the operator's --fetch-private lets a listed address through, and by default
// nothing does. Without --tenants the one app's owner runs the server: any, as before.

import { request } from 'node:http';
import t from 'tap';
import type { FetchPrivate } from '../../src/exchange/fetch-private.ts';
import { isPublicAddress } from '../../src/sandbox/ops/fetch.ts';
import { spawnServer } from '../helpers/process.ts';
import { makeApp, startServer } from '../helpers/server.ts';
import { upstream } from '../helpers/upstream.ts';
import { body, sandboxServer } from './harness.ts';

// The server's own port, or anything else on the host's loopback: it counts what reached it.
let reached = 0;
const PORT = await upstream(t, (_req, res) => {
  reached++;
  res.end('inside');
});

/** Spellings of 127.0.0.1 a tenant might list; the URL parser makes every one http://127.0.0.1:<port>. */
const LOOPBACK = [`http://127.0.0.1:${PORT}`, `http://2130706433:${PORT}`, `http://0x7f.1:${PORT}`, `http://127.1:${PORT}`];
/** IPv4-mapped IPv6 forms of it: http://[::ffff:7f00:1]:<port>. */
const MAPPED = [`http://[::ffff:127.0.0.1]:${PORT}`, `http://[::ffff:7f00:1]:${PORT}`];
const METADATA = 'http://169.254.169.254';

/** A handler that fetches `?to=` and reports the response's text or what was thrown. */
const CALLER = `export async function onList() {
  try {
    const r = await fetch(zget('/request/params/to'));
    zput('/request/json/output', { status: r.status, text: await r.text() });
  } catch (e) {
    zput('/request/json/output', { error: e.name + ': ' + e.message });
  }
  render();
}
`;
const MODELS = { calls: { fields: { name: { type: 'string' } } } };
const SETTINGS = JSON.stringify({ fetch: { allow: [...LOOPBACK, ...MAPPED, METADATA] } });

/** A tenants directory with one tenant, `acme`, whose svc.json lists every address above. */
function tenantsDir(t: { teardown(fn: () => unknown): void }): string {
  const root = makeApp({ files: { 'acme/models/calls.json': JSON.stringify(MODELS.calls), 'acme/resources/calls.ts': CALLER, 'acme/svc.json': SETTINGS } });
  t.teardown(() => root.cleanup());
  return root.dir;
}

/** GET /resources/calls?to=… as tenant acme, on a new connection each time (so --workers hands each to the next worker). */
function call(port: number, to: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: `/resources/calls?to=${encodeURIComponent(`${to}/x`)}`, headers: { host: 'acme.localhost' }, agent: false },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function tenantServer(t: { teardown(fn: () => unknown): void }, fetchPrivate?: FetchPrivate) {
  const server = await startServer({ tenantsDir: tenantsDir(t), log: () => {}, ...(fetchPrivate !== undefined ? { fetchPrivate } : {}) });
  t.teardown(() => server.close());
  return (to: string) => call(server.port, to);
}

const REFUSED = /^Error: fetch\(\): (127\.0\.0\.1|::ffff:7f00:1|169\.254\.169\.254) is not a public address, and this server does not let handlers reach it; listing it in svc\.json is not enough: the server's operator decides .*\(svc serve --fetch-private, SVC_FETCH_PRIVATE\)$/;

t.test('with --tenants, by default, no listed non-public address is reached, however it is spelt', async (t) => {
  const get = await tenantServer(t);
  reached = 0;
  for (const to of [...LOOPBACK, ...MAPPED, METADATA]) {
    const r = await get(to);
    t.equal(r.status, 200, to);
    t.match(r.json.error, REFUSED, to);
  }
  t.match((await get(`http://2130706433:${PORT}`)).json.error, /fetch\(\): 127\.0\.0\.1 is not a public address/, 'the check sees the address the URL parser made of it');
  t.equal(reached, 0, 'no connection reached the loopback server');
});

t.test('--fetch-private 127.0.0.0/8 lets a tenant reach what it lists there, and nothing else', async (t) => {
  const get = await tenantServer(t, ['127.0.0.0/8']);
  reached = 0;
  for (const to of LOOPBACK) t.same((await get(to)).json, { status: 200, text: 'inside' }, to);
  t.equal(reached, LOOPBACK.length);
  t.match((await get(METADATA)).json.error, REFUSED, 'the metadata service is outside 127.0.0.0/8');
  t.equal(reached, LOOPBACK.length);
});

t.test('without --tenants the app’s owner runs the server: a listed address is reached, unless the operator says none', async (t) => {
  const files = { models: MODELS, resources: { 'calls.ts': CALLER }, files: { 'svc.json': SETTINGS } };
  const single = await sandboxServer(files);
  t.teardown(() => single.close());
  const to = (s: typeof single, url: string) => s.at(`/resources/calls?to=${encodeURIComponent(`${url}/x`)}`);
  t.same(await body(await fetch(to(single, LOOPBACK[0]!))), { status: 200, text: 'inside' });

  const app = makeApp(files);
  const closed = await startServer({ appDir: app.dir, fetchPrivate: [], log: () => {} });
  t.teardown(async () => {
    await closed.close();
    app.cleanup();
  });
  t.match((await body(await fetch(closed.at(`/resources/calls?to=${encodeURIComponent(`${LOOPBACK[0]}/x`)}`)))).error, REFUSED);
});

t.test('IPv6 addresses that carry an IPv4 address are not public', async (t) => {
  for (const a of ['::ffff:7f00:1', '::ffff:a9fe:a9fe', '::7f00:1', '::a9fe:a9fe', '64:ff9b::a9fe:a9fe', '64:ff9b:1::a00:1', '2002:7f00:1::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2']) {
    t.notOk(isPublicAddress(a), a);
  }
  for (const a of ['2606:4700:4700::1111', '2a00:1450:4001:81c::200e', '1.1.1.1']) t.ok(isPublicAddress(a), a);
});

t.test('--workers processes get --fetch-private too', async (t) => {
  const data = makeApp({});
  t.teardown(() => data.cleanup());
  const server = await spawnServer(['--tenants', tenantsDir(t), '--store', `sqlite:${data.dir}/svc.sqlite`, '--workers', '2', '--fetch-private', '127.0.0.0/8']);
  t.teardown(() => void server.child.kill('SIGKILL'));
  const port = Number(new URL(server.url).port);
  // Each request on a new connection: the primary hands connections to the workers in turn.
  for (let i = 0; i < 4; i++) t.same((await call(port, LOOPBACK[0]!)).json, { status: 200, text: 'inside' }, `request ${i + 1}`);
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});
