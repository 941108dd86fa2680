// An app's settings (`svc.json`, README "App settings"), as every stage after the server sees them.

import type { FetchPrivate } from './fetch-private.ts';
import type { Limits } from './limits.ts';

export interface AppSettings {
  /** Values handlers read as `/app/env/<NAME>`. Secrets: the server never logs them. */
  readonly env: ReadonlyMap<string, string>;
  /** Origins (`scheme://host[:port]`) handlers may fetch. */
  readonly fetchAllow: readonly string[];
  /** The non-public networks a listed address may be in: the server's `--fetch-private`, which svc.json cannot widen. */
  readonly fetchPrivate: FetchPrivate;
  /** The server's limits, lowered where the app asks for less. */
  readonly limits: Limits;
}
