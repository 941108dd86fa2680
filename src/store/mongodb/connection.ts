// Connections to MongoDB: the database of an app, client options, and one client per URI shared by every app.

import { MongoClient, type MongoClientOptions } from 'mongodb';

/** The database when the URI names none (README "Configuration"). */
export const DEFAULT_DATABASE = 'svc';

/**
 * Client options applied unless the URI sets them (an operator's `?serverSelectionTimeoutMS=…`
 * wins). Each bounds how long a request can wait for a database that is gone, so that it is
 * answered 503 instead of hanging: https://www.mongodb.com/docs/drivers/node/current/connect/connection-options/
 */
export const CLIENT_DEFAULTS = {
  /** Milliseconds an operation waits for a usable server (the driver's default is 30,000). */
  serverSelectionTimeoutMS: 5_000,
  /** Milliseconds to open a connection (the driver's default is 30,000). */
  connectTimeoutMS: 5_000,
  /** Milliseconds a connection may wait for a reply; 0 (the driver's default) would wait forever. */
  socketTimeoutMS: 30_000,
} as const;

/** A MongoDB database name: no `/\. "$*<>:|?`, under 64 bytes (https://www.mongodb.com/docs/manual/reference/limits/#naming-restrictions). */
const DATABASE_NAME = /^[^/\\. "$*<>:|?\0]+$/;
/** App (tenant) names that may extend a database name. */
const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/**
 * The database of app `name` for a store URI: the URI's path (`mongodb://host/shop` → `shop`),
 * else `svc`; a tenant's is `<db>_<tenant>`.
 */
export function databaseName(uri: string, name: string): string {
  const afterScheme = uri.slice(uri.indexOf('//') + 2);
  // The authority ends at the first `/` or `?` (a `/` inside it must be percent-encoded).
  const end = afterScheme.search(/[/?]/);
  const path = end === -1 || afterScheme[end] === '?' ? '' : afterScheme.slice(end + 1).split('?')[0]!;
  const base = path === '' ? DEFAULT_DATABASE : decodeURIComponent(path);
  if (name !== '' && !APP_NAME.test(name)) throw new Error(`invalid app name for a database: ${JSON.stringify(name)}`);
  const db = name === '' ? base : `${base}_${name}`;
  if (!DATABASE_NAME.test(db) || Buffer.byteLength(db) > 63) {
    const fix = name === '' ? 'change the database in the store URI' : `shorten the database in the store URI (or the tenant's name)`;
    throw new Error(`"${db}" cannot be a MongoDB database name (no /\\. "$*<>:|? and under 64 bytes): ${fix}`);
  }
  return db;
}

/** The client options for `uri`: CLIENT_DEFAULTS and journaled writes, where the URI does not say otherwise. */
export function clientOptions(uri: string, { durable }: { durable: boolean }): MongoClientOptions {
  const query = uri.includes('?') ? uri.slice(uri.indexOf('?') + 1) : '';
  const given = new Set([...new URLSearchParams(query).keys()].map((k) => k.toLowerCase()));
  const options: MongoClientOptions = { appName: 'svc' };
  for (const [key, value] of Object.entries(CLIENT_DEFAULTS)) {
    if (!given.has(key.toLowerCase())) (options as Record<string, unknown>)[key] = value;
  }
  // An acknowledged write survives a crash of the server only once it is in the journal; on a
  // replica set, w: "majority" (the server's default) already implies it.
  // https://www.mongodb.com/docs/manual/reference/write-concern/#j-option
  if (durable && !['w', 'journal', 'j'].some((k) => given.has(k))) options.writeConcern = { journal: true };
  return options;
}

interface Shared {
  readonly client: MongoClient;
  refs: number;
  /** The connection under way or made; unset after a failure, so that the next use tries again. */
  connecting?: Promise<void>;
}

/** One client (one connection pool) per URI, shared by every app (tenant) of the process. */
const shared = new Map<string, Shared>();

/** The shared client of `uri` (created on first use), and how to give it back; the last release closes it. */
export function acquireClient(uri: string, options: MongoClientOptions): { client: MongoClient; connect: () => Promise<void>; release: () => Promise<void> } {
  let entry = shared.get(uri);
  if (!entry) {
    entry = { client: new MongoClient(uri, options), refs: 0 };
    shared.set(uri, entry);
  }
  entry.refs++;
  const e = entry;
  let released = false;
  return {
    client: e.client,
    // The driver connects on first use by itself, but a first connection that fails closes its
    // topology for good ("Topology is closed"); an explicit connect() can be tried again. Once
    // connected, the driver's monitoring rides out outages on its own.
    connect: () =>
      (e.connecting ??= e.client.connect().then(
        () => undefined,
        (err: unknown) => {
          e.connecting = undefined;
          throw err;
        },
      )),
    release: async () => {
      if (released) return;
      released = true;
      if (--e.refs > 0) return;
      if (shared.get(uri) === e) shared.delete(uri);
      await e.client.close();
    },
  };
}
