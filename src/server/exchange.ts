// One request and its response as every stage after the router sees them.

import type { App } from '../tenancy/app.ts';
import type { EventName } from '../routing/events.ts';
import type { Model } from '../model/types.ts';
import type { Representation } from '../representation/representation.ts';
import type { ResponseSink } from './response.ts';

export interface Target {
  readonly collection: string;
  /** The raw member id segment of the URL (not yet checked to be an integer). */
  readonly id?: string;
  /** Path info after the member id, with its leading `/`. */
  readonly pathInfo?: string;
  readonly event: EventName;
}

export interface Exchange {
  readonly app: App;
  readonly target: Target;
  /** The collection's model as it was when the request arrived (in-flight requests keep it). */
  readonly model: Model;
  /** The HTTP method as sent (`HEAD` is served as `GET` by the response sink). */
  readonly method: string;
  readonly path: string;
  /** `http://<Host>`: absolute URLs in representations are built from it. */
  readonly origin: string;
  /** Query parameters, first value of each; handlers may change them before delegating. */
  readonly params: Map<string, string>;
  /** Request headers, lower-case names, repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw request body (empty when none was sent). */
  readonly rawBody: Buffer;
  /**
   * The parsed member for create and update (`/request/body`): raw field values as the
   * representation read them, not yet validated. Handlers may replace it before delegating.
   */
  body: Record<string, unknown> | undefined;
  /** True when `body` came from a text-only representation (Atom): values are strings to parse. */
  bodyIsText: boolean;
  /** The representation negotiated for the response (JSON when nothing was asked). */
  representation: Representation;
  readonly res: ResponseSink;
  /** Development mode: problems may carry handler messages and lines. */
  readonly dev: boolean;
}

export function collectionUrl(ex: Exchange): string {
  return `${ex.origin}/resources/${ex.target.collection}`;
}
