// One request and its response, as every stage after routing sees them: the contract the stages share.

import type { ModelRegistry } from '../model/registry.ts';
import type { Model } from '../model/types.ts';
import type { Representation } from '../representation/representation.ts';
import type { EventName } from '../routing/events.ts';
import type { Store } from '../store/store.ts';
import type { Limits } from './limits.ts';
import type { Logger } from './log.ts';
import type { ResponseSink } from './response.ts';
import type { AppSettings } from './settings.ts';

export interface Target {
  readonly collection: string;
  /** The member id segment of the URL, percent-decoded (not yet checked to be an integer). */
  readonly id?: string;
  /** Path info after the member id, with its leading `/`. */
  readonly pathInfo?: string;
  readonly event: EventName;
}

export interface Exchange {
  /** The request id (`X-Request-Id`): the client's when it sent a usable one, else generated. */
  readonly id: string;
  /** Logs about this request: its id, tenant, collection and event are on every record. */
  readonly log: Logger;
  /** The tenant's name; '' in single-app mode. */
  readonly tenant: string;
  /** The app's store and models, and the limits that apply to this request. */
  readonly store: Store;
  readonly models: ModelRegistry;
  readonly limits: Limits;
  /** The app's settings (fetch origins, env values); `limits` are its limits. */
  readonly settings: AppSettings;
  /** The collection's handler script. */
  readonly handler: string;
  readonly target: Target;
  /** The collection's model as it was when the request arrived (in-flight requests keep it). */
  readonly model: Model;
  /** The HTTP method as sent (`HEAD` is served as `GET` by the response sink). */
  readonly method: string;
  readonly path: string;
  /** Origin of absolute URLs in representations (`http://<Host>`, or the configured public URL). */
  readonly origin: string;
  /** The query parameters the client sent, first value of each (paging links repeat these). */
  readonly query: ReadonlyMap<string, string>;
  /** Query parameters as the default handler reads them (plus `<collection>Id`); handlers may change them before delegating. */
  readonly params: Map<string, string>;
  /** Request headers, lower-case names, repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw request body (empty when none was sent). */
  readonly rawBody: Buffer;
  /**
   * The parsed member for create and update (`/request/body`), its values of the model's types
   * whatever the representation (Atom text is typed on arrival), not yet validated as a member.
   * Handlers may replace it before delegating.
   */
  body: Record<string, unknown> | undefined;
  /** The representation negotiated for the response (JSON when nothing was asked). */
  readonly representation: Representation;
  readonly res: ResponseSink;
  /** Development mode: problems may carry handler messages and lines. */
  readonly dev: boolean;
  /** What serving the request cost, for the request log and metrics. */
  readonly usage: Usage;
}

export interface Usage {
  /** CPU time handler code used in its isolate, in milliseconds. */
  handlerCpuMs: number;
}

export function collectionUrl(ex: Pick<Exchange, 'origin' | 'target'>): string {
  return `${ex.origin}/resources/${ex.target.collection}`;
}
