// Server configuration: every flag of SPEC §2 and every limit of §12, with its unit and default.

export interface Limits {
  /** Largest request body, in bytes. Default 1 MiB; over it: 413. */
  maxBodyBytes: number;
  /** Longest request target (path and query), in bytes. Default 8 KiB; over it: 414. */
  maxUrlBytes: number;
  /** Time to receive a request's headers and body, in milliseconds. Default 30 s; then the connection is closed. */
  requestTimeoutMs: number;
  /** Handler CPU time per request, in milliseconds. Default 100; over it: 503. */
  cpuLimitMs: number;
  /** Heap of a tenant's isolate, in MiB. Default 64; over it: 503 and the isolate is replaced. */
  memoryLimitMiB: number;
  /** Body bytes one handler response may write. Default 16 MiB; over it: 503, or the connection is cut. */
  maxOutputBytes: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = {
  maxBodyBytes: 1024 * 1024,
  maxUrlBytes: 8 * 1024,
  requestTimeoutMs: 30_000,
  cpuLimitMs: 100,
  memoryLimitMiB: 64,
  maxOutputBytes: 16 * 1024 * 1024,
};

export interface Config {
  /** Single-app mode: the app directory. Default `./app`. */
  app: string;
  /** Multi-tenant mode: a directory of tenant apps (SPEC §10); unset = single-app mode. */
  tenants?: string;
  /** TCP port; 0 picks a free one. Default 8080. */
  port: number;
  /** Address to bind. Default 127.0.0.1 (0.0.0.0 in the container image). */
  host: string;
  /** Store URI (SPEC §2). Default `sqlite:./data/svc.sqlite`. */
  store: string;
  /** Development mode: problems carry handler messages, files and lines. Default off. */
  dev: boolean;
  /**
   * Origin of absolute URLs (Location, Link, Atom), e.g. `https://api.example.com`; `{tenant}`
   * stands for the tenant's name. Unset: `http://` and the request's Host.
   */
  publicUrl?: string;
  limits: Limits;
}

export const DEFAULT_CONFIG: Readonly<Omit<Config, 'limits'>> = {
  app: './app',
  port: 8080,
  host: '127.0.0.1',
  store: 'sqlite:./data/svc.sqlite',
  dev: false,
};
