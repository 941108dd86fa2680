// Server configuration: every flag of the README's "Configuration", with its unit and default.

import { defaultFetchPrivate, type FetchPrivate } from './exchange/fetch-private.ts';
import type { Limits } from './exchange/limits.ts';
import type { LogFormat, LogLevel } from './exchange/log.ts';

export type { Limits } from './exchange/limits.ts';
export { DEFAULT_LIMITS } from './exchange/limits.ts';

export interface Config {
  /** Single-app mode: the app directory. Default `./app`. */
  app: string;
  /** Multi-tenant mode: a directory of tenant apps (README "Tenants"); unset = single-app mode. */
  tenants?: string;
  /** TCP port; 0 picks a free one. Default 8080. */
  port: number;
  /** Address to bind, never empty (Node would bind every interface). Default 127.0.0.1 (0.0.0.0 in the container image). */
  host: string;
  /** Store URI (README "Configuration"). Default `sqlite:./data/svc.sqlite`. */
  store: string;
  /** Development mode: problems carry handler messages, files and lines. Default off. */
  dev: boolean;
  /**
   * Origin of absolute URLs (Location, Link, Atom), e.g. `https://api.example.com`; `{tenant}`
   * stands for the tenant's name, so it needs `tenants`. Unset: `http://` and the request's Host.
   */
  publicUrl?: string;
  /** Origins browsers may call the API from (`*`: any); unset: CORS off (README "CORS"). */
  cors?: readonly string[];
  /**
   * Non-public networks a handler's `fetch()` may reach when its app lists the address
   * (`--fetch-private`, src/exchange/fetch-private.ts): `'any'`, or CIDR blocks (`[]`: none).
   * Unset: none with `tenants`, any without; read it with `fetchPrivateOf`.
   */
  fetchPrivate?: FetchPrivate;
  /**
   * Start even when the store cannot be reached yet (MongoDB): `/readyz` answers 503 until it
   * connects. Default off: an unreachable store is an error at start-up.
   */
  waitForStore: boolean;
  /**
   * Server processes on the port (README "Operations"); 1 serves in this process. Default 1. More
   * than 1 needs a store they share: not a volatile one, which lives in each process.
   */
  workers: number;
  /** Requests one app may have in progress at once, per process; more are 503 `tenant-busy`. Default 64. */
  tenantConcurrency: number;
  /**
   * Hard bound on the resident memory of each server process, in MiB (src/sandbox/memory-guard.ts):
   * over it the handler requests running are stopped (503 `handler-memory-limit`), and a process
   * still over it 3 s later ends so that it is restarted. 0 turns it off. Default 2048.
   */
  maxRssMiB: number;
  /**
   * A tenant with no request for this long releases its isolates and its store handle, and opens
   * them again on its next request (README "Tenants"), in milliseconds; 0 keeps tenants open.
   * Default 300 000 (5 minutes). Single-app mode keeps its app open.
   */
  tenantIdleMs: number;
  /** Log lines as `text` or `json`. Default text. */
  logFormat: LogFormat;
  /** Least level logged. Default info. */
  logLevel: LogLevel;
  limits: Limits;
}

export const DEFAULT_CONFIG: Readonly<Omit<Config, 'limits'>> = {
  app: './app',
  port: 8080,
  host: '127.0.0.1',
  store: 'sqlite:./data/svc.sqlite',
  dev: false,
  waitForStore: false,
  workers: 1,
  tenantConcurrency: 64,
  maxRssMiB: 2048,
  tenantIdleMs: 300_000,
  logFormat: 'text',
  logLevel: 'info',
};

/** `--fetch-private` as given, or its default for this server (none with tenants, any with one app). */
export const fetchPrivateOf = (config: Pick<Config, 'fetchPrivate' | 'tenants'>): FetchPrivate => config.fetchPrivate ?? defaultFetchPrivate(config.tenants !== undefined);
