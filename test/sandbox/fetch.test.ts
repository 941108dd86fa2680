// fetch() from handlers: only to origins the app lists in svc.json, never to a private address a
// name resolves to, never following a redirect, within its count, time and size; and app
// settings (`/app/env/…`) that no other tenant can read.

import { request, type IncomingHttpHeaders } from 'node:http';
import t from 'tap';
import { isPublicAddress } from '../../src/sandbox/ops/fetch.ts';
import { makeApp, startServer } from '../helpers/server.ts';
import { upstream } from '../helpers/upstream.ts';
import { body, sandboxServer } from './harness.ts';

// The upstream service a handler calls: it records what it received.
const seen: IncomingHttpHeaders[] = [];
const PORT = await upstream(t, (req, res) => {
  seen.push(req.headers);
  if (req.url === '/hello') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ hello: 'world', method: req.method }));
  } else if (req.url === '/redirect') {
    res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
  } else if (req.url === '/big') {
    res.end('x'.repeat(1000));
  } else if (req.url === '/hang') {
    // Never answers: the handler's fetch must give up on its own.
  } else res.writeHead(404).end();
});
const UP = `http://127.0.0.1:${PORT}`;

/** A handler that fetches `?to=` (with `?method=`, `?times=`) and reports what came back or what was thrown. */
const CALLER = `export async function onList() {
  const to = zget('/request/params/to');
  const times = Number(zget('/request/params/times') ?? 1);
  const out = [];
  try {
    for (let i = 0; i < times; i++) {
      const r = await fetch(to, { method: zget('/request/params/method') ?? 'GET', headers: { 'x-from': 'handler' } });
      out.push({ status: r.status, location: r.headers.get('location'), text: await r.text() });
    }
    zput('/request/json/output', { out });
  } catch (e) {
    zput('/request/json/output', { out, error: e.name + ': ' + e.message });
  }
  render();
}
`;
const MODELS = { calls: { fields: { name: { type: 'string' } } } };

async function caller(t: { teardown(fn: () => unknown): void }, settings: unknown) {
  const s = await sandboxServer({ models: MODELS, resources: { 'calls.ts': CALLER }, files: { 'svc.json': JSON.stringify(settings) } });
  t.teardown(() => s.close());
  return async (to: string, extra = '') => body(await fetch(s.at(`/resources/calls?to=${encodeURIComponent(to)}${extra}`)));
}

t.test('a listed origin is fetched; the upstream sees the handler’s headers and no credentials of the host', async (t) => {
  const call = await caller(t, { fetch: { allow: [UP] } });
  seen.length = 0;
  const r = await call(`${UP}/hello`, '&method=POST');
  t.same(r.out, [{ status: 200, location: null, text: '{"hello":"world","method":"POST"}' }]);
  t.equal(seen.length, 1);
  t.equal(seen[0]!['x-from'], 'handler');
  t.notOk(seen[0]!.cookie ?? seen[0]!.authorization ?? seen[0]!['proxy-authorization'], 'nothing the host holds');
});

t.test('an origin not listed is refused, and so is every scheme but http(s)', async (t) => {
  const call = await caller(t, { fetch: { allow: [UP] } });
  t.match((await call('http://127.0.0.1:9/hello')).error, /Error: fetch\(\): http:\/\/127\.0\.0\.1:9 is not an origin this app may fetch; list it under fetch\.allow/);
  t.match((await call('file:///etc/passwd')).error, /TypeError: fetch\(\): only http: and https: URLs/);
  t.match((await call('/relative')).error, /is not an absolute URL/);
  const noSettings = await caller(t, {});
  t.match((await noSettings(`${UP}/hello`)).error, /is not an origin this app may fetch/, 'no svc.json: no fetch at all');
});

t.test('a listed name that resolves to a private address is refused (DNS rebinding)', async (t) => {
  const port = PORT;
  const call = await caller(t, { fetch: { allow: [`http://localhost:${port}`] } });
  seen.length = 0;
  t.match((await call(`http://localhost:${port}/hello`)).error, /localhost resolves to an address that is not public \((127\.0\.0\.1|::1)\)/);
  t.equal(seen.length, 0, 'no connection was made');
});

t.test('redirects are not followed: a redirect to the metadata service comes back as a 302, and fetching it is refused', async (t) => {
  const call = await caller(t, { fetch: { allow: [UP] } });
  const r = await call(`${UP}/redirect`);
  t.same(r.out, [{ status: 302, location: 'http://169.254.169.254/latest/meta-data/', text: '' }]);
  t.match((await call('http://169.254.169.254/latest/meta-data/')).error, /is not an origin this app may fetch/);
});

t.test('per request: at most fetchCount fetches, fetchMaxBytes of response, fetchTimeoutMs of time', async (t) => {
  const call = await caller(t, { fetch: { allow: [UP] }, limits: { fetchCount: 2, fetchMaxBytes: 100, fetchTimeoutMs: 300 } });
  const counted = await call(`${UP}/hello`, '&times=3');
  t.equal(counted.out.length, 2);
  t.match(counted.error, /this request made its 2 fetches/);
  t.match((await call(`${UP}/big`)).error, /is over 100 bytes/);
  const started = Date.now();
  t.match((await call(`${UP}/hang`)).error, /did not answer within 300 ms/);
  t.ok(Date.now() - started < 10_000, 'the request was answered');
  t.equal((await call(`${UP}/hello`)).out.length, 1, 'a new request has a new budget');
});

t.test('addresses that are not public', async (t) => {
  for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '224.0.0.1']) {
    t.notOk(isPublicAddress(a), a);
  }
  for (const a of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111']) t.ok(isPublicAddress(a), a);
});

t.test('app settings: env values for handlers, read-only, and a bad svc.json is a clear 500 that shows no value', async (t) => {
  const handler = `export function onList() {
    let put = 'allowed';
    try { zput('/app/env/GREETING', 'x'); } catch (e) { put = e.message; }
    zput('/request/json/output', { greeting: zget('/app/env/GREETING'), missing: zget('/app/env/NOPE') ?? null, has: zcontains('/app/env/GREETING'), put });
    render();
  }`;
  const ok = await sandboxServer({ models: MODELS, resources: { 'calls.ts': handler }, files: { 'svc.json': JSON.stringify({ env: { GREETING: 'hello' } }) } });
  t.teardown(() => ok.close());
  t.same(await body(await fetch(ok.at('/resources/calls'))), { greeting: 'hello', missing: null, has: true, put: 'zput("/app/env/GREETING"): /app/env/GREETING is read-only' });
  t.notOk(ok.log.some((l) => l.includes('hello')), 'the value is in no log line');

  const root = makeApp({
    files: {
      'alpha/models/calls.json': JSON.stringify(MODELS.calls),
      'alpha/resources/calls.ts': handler,
      'alpha/svc.json': JSON.stringify({ env: { GREETING: 'alpha-secret' } }),
      'beta/models/calls.json': JSON.stringify(MODELS.calls),
      'beta/resources/calls.ts': handler,
      'gamma/models/calls.json': JSON.stringify(MODELS.calls),
      'gamma/resources/calls.ts': handler,
      'gamma/svc.json': JSON.stringify({ env: { GREETING: 'gamma-secret', 'bad name': 'x' }, limits: { cpuLimitMs: 'fast' } }),
    },
  });
  const server = await startServer({ tenantsDir: root.dir, log: () => {} });
  t.teardown(async () => {
    await server.close();
    root.cleanup();
  });
  const get = (tenant: string) =>
    new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path: '/resources/calls', headers: { host: `${tenant}.localhost` } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end();
    });
  t.match((await get('alpha')).json, { greeting: 'alpha-secret' });
  t.match((await get('beta')).json, { greeting: undefined, missing: null, has: false }, 'another tenant reads none of it');
  const bad = await get('gamma');
  t.equal(bad.status, 500);
  t.match(bad.json, { code: 'app-settings-invalid', detail: /svc\.json does not match runtime\/svc-settings\.schema\.json: .*\/limits\/cpuLimitMs must be integer/ });
  t.notMatch(JSON.stringify(bad.json), /gamma-secret/);
});
