// `--store mongodb-memory`: a mongod started by mongodb-memory-server, one per process, loaded only when used.

import type { MongoMemoryServer } from 'mongodb-memory-server';

let running: { server: Promise<MongoMemoryServer>; refs: number } | undefined;

/**
 * The URI of this process's in-memory mongod, started on first use. It needs a mongod binary:
 * the one `MONGOMS_SYSTEM_BINARY` names, one downloaded earlier, or one it downloads now.
 */
export async function acquireMemoryServer(): Promise<{ uri: string; release: () => Promise<void> }> {
  if (!running) {
    const server = import('mongodb-memory-server').then(({ MongoMemoryServer }) => MongoMemoryServer.create());
    running = { server, refs: 0 };
    server.catch(() => {
      if (running?.server === server) running = undefined;
    });
  }
  const r = running;
  r.refs++;
  let server: MongoMemoryServer;
  try {
    server = await r.server;
  } catch (e) {
    r.refs--;
    throw new Error(`mongodb-memory: cannot start a mongod (${(e as Error).message.split('\n')[0]}); set MONGOMS_SYSTEM_BINARY to a mongod binary, or use --store mongodb://…`);
  }
  let released = false;
  return {
    uri: server.getUri(),
    release: async () => {
      if (released) return;
      released = true;
      if (--r.refs > 0) return;
      if (running === r) running = undefined;
      await server.stop();
    },
  };
}
