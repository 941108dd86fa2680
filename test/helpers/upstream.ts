// An HTTP server on 127.0.0.1 port 0 for handlers to fetch(), closed when the test ends.

import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `listener` on 127.0.0.1 (port 0); its port, the server closed (connections too) on teardown. */
export async function upstream(t: { teardown(fn: () => unknown): void }, listener: RequestListener): Promise<number> {
  const server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}
