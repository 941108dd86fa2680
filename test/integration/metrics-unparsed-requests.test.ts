// README "Operations", Metrics: `svc_requests_total{tenant,status}`, where `tenant` is "empty for
// requests no app served (probes, unknown tenants, requests that could not be parsed)". A request
// node:http could not parse (400 malformed-request, 431 headers-too-large), answered on the
// connection before any request object existed, was logged but not counted at all: a flood of
// malformed requests did not show in the metrics.

import t from 'tap';
import { raw } from '../helpers/raw-http.ts';
import { startServer } from '../helpers/server.ts';

t.test('requests that could not be parsed are counted under the empty tenant', async (t) => {
  const s = await startServer();
  t.teardown(() => s.close());
  t.equal((await raw(s.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n')).status, 400);
  t.equal((await raw(s.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`)).status, 431);
  const metrics = await (await fetch(s.at('/metrics'))).text();
  t.match(metrics, /^svc_requests_total\{tenant="",status="400"\} 1$/m, 'the malformed request');
  t.match(metrics, /^svc_requests_total\{tenant="",status="431"\} 1$/m, 'the one with headers too large');
});
