// The ceiling of `npm run bench`: raw node:http answering every request with one fixed JSON array
// of 20 members shaped like svc's first page. Run as a child process; prints its URL on stdout.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { employee, rng } from './data.ts';

const next = rng(20);
const t0 = Date.UTC(2025, 0, 1);
const page = Array.from({ length: 20 }, (_, i) => ({ id: i + 1, updated: new Date(t0 + i).toISOString(), ...employee(next, i) }));
const body = Buffer.from(JSON.stringify(page));

const server = createServer((req, res) => {
  // A request body (none in the ceiling rows) is left for node:http to discard.
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`ceiling listening on http://127.0.0.1:${port}`);
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));
