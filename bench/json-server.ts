// The peer of `npm run bench`: json-server (a dev dependency) serving one JSON file, wired as its
// CLI (node_modules/json-server/lib/bin.js) wires it, but on 127.0.0.1 and port 0, printing its URL
// on stdout like every bench server. Run as a child process with NODE_ENV=production, which is how
// json-server runs fastest: no file watcher, and static files looked up once, not per request.
//
// Usage: node bench/json-server.ts <db.json>

import type { AddressInfo } from 'node:net';
import { NormalizedAdapter } from 'json-server/lib/adapters/normalized-adapter.js';
import { Observer } from 'json-server/lib/adapters/observer.js';
import { createApp } from 'json-server/lib/app.js';
// json-server's own store: lowdb is its dependency, not ours, at the version it installs.
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';

const file = process.argv[2];
if (!file) throw new Error('usage: node bench/json-server.ts <db.json>');

const db = new Low(new Observer(new NormalizedAdapter(new JSONFile(file))), {});
await db.read();
const server = createApp(db, { logger: false, static: [] }).listen(
  0,
  () => {
    const { port } = server.address() as AddressInfo;
    console.log(`json-server listening on http://127.0.0.1:${port}`);
  },
  '127.0.0.1',
);

// Node's default of 5 s closes a kept-alive connection whose next request waited longer than that
// behind the others: json-server sorts every member for each page (W1: 150–300 ms), so 32 connections
// queue for more than 5 s on a busy machine, and the connection is reset with the request unread.
// Not a cost of a request, only of the closed-loop bench (svc keeps the same 5 s, but its
// requests here never queue that long).
server.keepAliveTimeout = 60_000;

process.on('SIGTERM', () => server.close(() => process.exit(0)));
