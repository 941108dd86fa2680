// The handler runtime API (README "Handlers") as handler authors see it: every global a handler script can use.
//
// Add this file to a handler project's tsconfig ("include": ["resources/**/*.ts", "<svc>/runtime/svc.d.ts"],
// "types": [], "lib": ["es2024"]) and an editor completes svc., zget, zput and the context keys.
// Handlers run in an isolate: there is no `require`, `process`, `Buffer`, timers, file system or
// network other than `fetch()` to the origins the app's svc.json lists, and every call below but
// `fetch()` is synchronous.

/** JSON data: what crosses into and out of the context. */
type SvcJson = null | boolean | number | string | SvcJson[] | { [key: string]: SvcJson };

/** What a handler may give where JSON data goes in (zput, the model API): a Date, at any depth, becomes its ISO string. */
type SvcJsonIn = null | boolean | number | string | Date | SvcJsonIn[] | { [key: string]: SvcJsonIn };

/** A stored member: `id`, `updated` and the model's declared fields that are set. */
interface SvcMember {
  id: number;
  updated: string;
  [field: string]: string | number | boolean | null;
}

/** Event names, as `zget('/event/_name')` returns them. */
type SvcEventName = 'list' | 'putCollection' | 'create' | 'deleteCollection' | 'retrieve' | 'update' | 'postMember' | 'delete';

/** The context keys of README "Handlers" and the type each holds (`undefined` when not set). */
interface SvcContextKeys {
  /** The HTTP method as sent (`HEAD` for a HEAD request). Read-only. */
  '/request/method': string;
  /** The URL path. Read-only. */
  '/request/path': string;
  /** The parsed member sent with create and update; Atom values arrive typed by the model, as JSON's. */
  '/request/body': Record<string, SvcJson>;
  /** The request's body as sent, as UTF-8 text (undefined without one), for every event: read it for events whose body the server does not parse (postMember, putCollection, …), or to check a signature. Read-only. */
  '/request/rawBody': string;
  /** The status to send; an integer from 200 to 599. After delegate(): the status sent. */
  '/request/status': number;
  /** The view render() renders. */
  '/request/view': 'JSON' | 'error';
  /** What the JSON view renders. */
  '/request/json/output': SvcJson;
  /** The `detail` the error view renders with /request/status. */
  '/request/error/message': string;
  /** The event being served. Read-only. */
  '/event/_name': SvcEventName;
  /** The path after the member id, with its leading `/`; only when the URL has one. Read-only. */
  '/event/pathInfo': string;
  /** After delegate() on list: the members listed (at most 10,000). Read-only; throws when they are over maxResultBytes (8 MiB) as JSON. */
  '/event/resource/collection': SvcMember[];
  /** After delegate() on create, retrieve and update: the member. Read-only. */
  '/event/resource/member': SvcMember;
}

/** `/request/params/<name>` (first value; `<collection>Id` holds the member id), `/request/headers/in|out/<name>` (lower-case names). */
type SvcStringKey = `/request/params/${string}` | `/request/headers/in/${string}` | `/request/headers/out/${string}` | `/app/env/${string}`;

/** Context keys: the table of README "Handlers", parameters, headers, `/app/env/<NAME>` (svc.json, read-only), and keys of your own (not under /request/, /event/ or /app/). */
type SvcKey = keyof SvcContextKeys | SvcStringKey | (string & {});

type SvcValue<K> = K extends keyof SvcContextKeys ? SvcContextKeys[K] : K extends SvcStringKey ? string : SvcJson;

/** What zput takes for a key: its value, where JSON data may hold Dates (SvcJsonIn). */
type SvcPutValue<K> = K extends '/request/json/output' ? SvcJsonIn : K extends '/request/body' ? Record<string, SvcJsonIn> : K extends keyof SvcContextKeys | SvcStringKey ? SvcValue<K> : SvcJsonIn;

/** Filters (`<field>__<condition>`), `start`, `count` and `order_by`, as in the URL. */
type SvcQuery = Record<string, string | number | boolean>;

/** The model API of one of the app's own models. */
interface SvcCollection {
  /** Members matching the query (at most 10,000 and 8 MiB of JSON per call, else it throws: page with start and count). */
  list(query?: SvcQuery): SvcMember[];
  /** How many members match the query's filters. */
  count(query?: SvcQuery): number;
  /** The member, or null when there is none with this id. */
  retrieve(id: number | string): SvcMember | null;
  /** Validates and stores a new member; throws an Error naming every invalid field. */
  create(member: Record<string, SvcJsonIn>): SvcMember;
  /** Replaces the member's editable fields; null when there is no such member. */
  update(id: number | string, member: Record<string, SvcJsonIn>): SvcMember | null;
  /** True when a member was deleted. */
  delete(id: number | string): boolean;
}

interface SvcRuntime {
  /**
   * Runs the default handler for this event now. Changes made before (parameters, body, status,
   * headers) apply; when it returns the response is complete and /event/resource/* hold the
   * result. A second call throws.
   */
  delegate(): void;
  /** The value of a context key (a copy), or undefined. */
  get<K extends SvcKey>(key: K): SvcValue<K> | undefined;
  /** Sets a context key to a copy of `value` (JSON data only; anything else throws a TypeError). */
  put<K extends SvcKey>(key: K, value: SvcPutValue<K> | undefined): void;
  /** True when the key is set. */
  contains(key: SvcKey): boolean;
  /** Unsets a key; true when it was set. */
  delete(key: SvcKey): boolean;
  /** Writes to the response body; the first write commits status and headers. */
  write(text: string | number | boolean): void;
  /** Renders the view named by /request/view (default JSON) and completes the response. */
  render(): void;
  /** The model API of one of the app's models; throws when the app declares no such model. */
  collection(name: string): SvcCollection;
}

/** Console output goes to the server log, tagged with tenant, collection and event. */
interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  debug(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
}

declare var console: Console;
declare const svc: SvcRuntime;
declare function svc_delegate(): void;
declare function zget<K extends SvcKey>(key: K): SvcValue<K> | undefined;
declare function zput<K extends SvcKey>(key: K, value: SvcPutValue<K> | undefined): void;
declare function zcontains(key: SvcKey): boolean;
declare function zdelete(key: SvcKey): boolean;
declare function echo(text: string | number | boolean): void;
declare function render(): void;

/** Options of fetch(): a string body (JSON.stringify objects), headers as an object of strings. */
interface SvcFetchInit {
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  headers?: Record<string, string>;
  body?: string;
}

/** What fetch() resolves to: the whole response, read by the server within the app's limits. */
interface SvcResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly url: string;
  readonly headers: { get(name: string): string | null; has(name: string): boolean; entries(): [string, string][] };
  text(): Promise<string>;
  json(): Promise<any>;
}

/**
 * An HTTP request to an origin listed under `fetch.allow` in the app's svc.json (README "App
 * settings"). Redirects are returned, not followed. Rejects for an origin not listed, a name that
 * resolves to a private address, a listed private address the server's `--fetch-private` does not
 * allow, more fetches, bytes or time than the request's limits.
 */
declare function fetch(url: string, init?: SvcFetchInit): Promise<SvcResponse>;
