// The ceiling of `npm run bench`: raw node:http answering every request with one fixed JSON array
// of 20 members shaped like svc's first page. Run as a child process; prints its URL on stdout.
// `node bench/ceiling.ts <µs>`: the same server spending that much CPU time per request first (a
// busy loop), to calibrate the ratios: what a server that does only that much work per request
// reaches against the ceiling on this machine.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { employee, rng } from './data.ts';

const next = rng(20);
const t0 = Date.UTC(2025, 0, 1);
const page = Array.from({ length: 20 }, (_, i) => ({ id: i + 1, updated: new Date(t0 + i).toISOString(), ...employee(next, i) }));
const body = Buffer.from(JSON.stringify(page));
/** CPU time to spend per request, in milliseconds. */
const spinMs = Number(process.argv[2] ?? 0) / 1000;

const server = createServer((req, res) => {
  if (spinMs > 0) for (const until = performance.now() + spinMs; performance.now() < until; );
  // A request body (none in the ceiling rows) is left for node:http to discard.
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`ceiling listening on http://127.0.0.1:${port}`);
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));
