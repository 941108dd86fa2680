// The MongoDB that tests run against: SVC_TEST_MONGODB_URI, else an in-memory mongod when a binary is at hand.

import type { Test } from 'tap';
import { acquireMemoryServer } from '../../src/store/mongodb/memory.ts';

export type MongoTarget = { readonly uri: string; close(): Promise<void> } | { readonly skip: string };

/**
 * `SVC_TEST_MONGODB_URI` when set (any mongodb:// URI: a real server, a replica set, or the wire
 * test server), else a mongodb-memory-server mongod when a binary is already there (never a
 * download in a test run), else the reason there is none.
 */
export async function mongoTarget(): Promise<MongoTarget> {
  const uri = process.env.SVC_TEST_MONGODB_URI;
  if (uri) return { uri, close: async () => {} };
  const missing = await memoryServerUnavailable();
  if (missing) return { skip: missing };
  try {
    const memory = await acquireMemoryServer();
    return { uri: memory.uri, close: memory.release };
  } catch (e) {
    return { skip: (e as Error).message };
  }
}

/** Why no in-memory mongod can start here without a download, or undefined when one can. */
async function memoryServerUnavailable(): Promise<string | undefined> {
  try {
    const { DryMongoBinary } = await import('mongodb-memory-server');
    const binary = await DryMongoBinary.locateBinary(await DryMongoBinary.generateOptions());
    return binary ? undefined : 'SVC_TEST_MONGODB_URI is not set and mongodb-memory-server has no mongod binary (MONGOMS_SYSTEM_BINARY)';
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}

/** The line a test file prints when it has no MongoDB to run against. */
export function skipLine(reason: string): string {
  return `skipped: no MongoDB (${reason})`;
}

/** Runs `run` against the test MongoDB (closed at the end of `t`), or prints the skip line and skips. */
export async function onMongo(t: Test, run: (uri: string) => unknown): Promise<void> {
  const target = await mongoTarget();
  if ('skip' in target) {
    t.comment(skipLine(target.skip));
    t.skip(skipLine(target.skip), async () => {});
    return;
  }
  t.teardown(target.close);
  await run(target.uri);
}
