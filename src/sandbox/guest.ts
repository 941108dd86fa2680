// What crosses the boundary out of an isolate, and the host's state of one request in it: the
// guest's JSON (parsed, neutralised, checked), the rules its status and headers obey, and the
// error a host call turns into inside the isolate. runtime/prelude.js applies the same rules
// (bridge.ts passes it the constants below) so that a handler learns of a mistake where it made it.

import { SvcError } from '../errors.ts';
import { complete } from '../exchange/complete.ts';
import type { Exchange } from '../exchange/exchange.ts';
import type { DelegateResult } from '../handler/default-handler.ts';
import { hasEscapedName, JsonTextError, readJson } from '../model/json-text.ts';
import { EVENTS, type EventName } from '../routing/events.ts';

/** The most levels of nesting accepted in guest JSON, the outermost value being level 1. */
const MAX_DEPTH = 128;
/** The most response headers a handler may set. */
export const MAX_HEADERS = 200;
/**
 * Console output one request may log: more is dropped, with one line saying so, so that a request
 * cannot flood the log (and the disk under it). The prelude stops calling the host at the same numbers.
 */
export const MAX_LOG_LINES = 1000;
export const MAX_LOG_CHARS = 1024 * 1024;
/**
 * Characters of one console line: the prelude cuts a longer one (ending it with `…`), and the host
 * refuses a longer log call's text (bridge.ts), so one call never hands it more than this.
 */
export const MAX_LOG_LINE_CHARS = 8192;

export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * Headers that frame the message or manage the connection: the server owns them. A handler's
 * `content-length` would let it write past the declared length, and the excess would be read by
 * the client (or a proxy sharing the connection) as the response to its next request (response
 * splitting); `transfer-encoding`, `connection` and the other hop-by-hop headers are as bad. The
 * prelude refuses them; the host ignores them from the guest and keeps its own.
 */
export const SERVER_HEADERS: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/**
 * The response headers a handler can neither set nor remove: SERVER_HEADERS, and `X-Request-Id`,
 * the id the request's log records and problems quote (README "Request ids"): a handler's own
 * would send the client an id no log record has. (A handler's fetch() may send one upstream.)
 */
export const RESPONSE_SERVER_HEADERS: ReadonlySet<string> = new Set([...SERVER_HEADERS, 'x-request-id']);

/** Status and headers the guest wants committed with the first output. */
export interface Head {
  readonly status?: number;
  readonly headers: readonly (readonly [string, string])[];
}

/** How a handler run ended, as the guest reports it. */
export interface Outcome {
  readonly head?: Head;
  /** The handler implements events, but not this one: these are the ones it implements. */
  readonly notAllowed?: readonly EventName[];
  readonly error?: { readonly name: string; readonly message: string; readonly stack?: string };
}

/** The host's state of one request submitted to an isolate. */
export interface Call {
  /** Names the request in runtime calls from the isolate. */
  readonly token: number;
  readonly ex: Exchange;
  delegated?: DelegateResult;
  /**
   * The reply of the `svc.delegate()` a handler ended with, sent one-way (runtime/prelude.js) and
   * performed while the isolate goes on: `delegated` reads it.
   */
  ending?: Promise<string>;
  /**
   * The last call sent one-way (`send`, or `delegate`, after which the prelude sends no output):
   * the request ends only after it.
   */
  oneWay?: Promise<string>;
  /**
   * The first one-way call the host refused. It is the handler's failure: its next runtime call
   * throws it, and the request ends as a handler error even if the handler caught that.
   */
  refused?: GuestError;
  /** The outcome an async handler reported through `finish`. */
  finished?: Outcome;
  /** It is first in its isolate's queue, so it runs, or ran (it may have waited behind other requests). */
  started: boolean;
  /** Its run was handed to its isolate's thread (isolate-pool.ts `#handOver`): it can start only then. */
  handedOver?: boolean;
  /** Set when the host has answered (or given up on) this request: later calls are refused. */
  closed: boolean;
  /** Milliseconds spent in host calls, and the start of the one under way (wall-limit accounting). */
  hostMs: number;
  hostSince?: number;
  /** Milliseconds this request's model-API calls kept the store busy (see Limits.modelLimitMs). */
  modelMs?: number;
  /** fetch() calls this request made (see Limits.fetchCount). */
  fetches?: number;
  /** Console lines and characters this request logged (see MAX_LOG_LINES). */
  logLines?: number;
  logChars?: number;
  /** The limit this request broke, when the watchdog disposed its isolate for it. */
  breach?: 'cpu' | 'wall' | 'request';
}

/** The host half of one runtime call: `payload` is the checked-for-nothing parsed JSON, `text` the output argument. */
export type Op = (call: Call, payload: unknown, text: string) => Promise<unknown> | unknown;

/** Raised by a host call: becomes an `Error` (or `TypeError`) thrown inside the isolate. */
export class GuestError extends Error {
  readonly type: 'Error' | 'TypeError';
  constructor(message: string, type: 'Error' | 'TypeError' = 'Error') {
    super(message);
    this.type = type;
  }
}

/**
 * The most characters of JSON the host reads from an isolate at once: the data of a runtime call
 * (status and headers, parameters, a body, model-API arguments) or how a handler ended (its status
 * and headers), so that no handler makes the host's event loop parse, check and send megabytes
 * (README "Limits"). Output is not JSON: it goes as text, capped by maxOutputBytes.
 */
export const MAX_PAYLOAD_CHARS = 4 * 1024 * 1024;

/** A handler's outcome, as parseGuestJson's `what` names it over MAX_PAYLOAD_CHARS. */
export const OUTCOME_DATA = 'the status and headers the handler ended with are';

/**
 * JSON from the guest: at most MAX_PAYLOAD_CHARS characters (a longer text is refused unread, the
 * error saying `what` … over the bound), `__proto__` keys and object-valued `constructor` keys
 * dropped, depth bounded.
 */
export function parseGuestJson(text: string, what = 'the data of this call is'): unknown {
  if (text.length > MAX_PAYLOAD_CHARS) throw new GuestError(`svc: ${what} over ${MAX_PAYLOAD_CHARS} characters as JSON`);
  // V8 can misread an escaped name after another parse in the process (json-text.ts, readValid),
  // so such text is read around it. This runs on every runtime call: hasEscapedName looks only at
  // the strings that hold a backslash (a native search finds them), so the rest stays on JSON.parse
  // alone, the walk below bounding its depth (payloads of 300 characters to 260 KB, with and
  // without backslashes in values, cost what they did before, within the noise of 10%).
  const value: unknown = hasEscapedName(text) ? readEscaped(text) : JSON.parse(text);
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_DEPTH) throw tooDeep();
    if (Array.isArray(v)) {
      for (const item of v) stack.push([item, depth + 1]);
      continue;
    }
    const o = v as Record<string, unknown>;
    if (Object.hasOwn(o, '__proto__')) Reflect.deleteProperty(o, '__proto__');
    // A scalar `constructor` is plain data (a model may have such a field); an object there is
    // the shape of a prototype-pollution payload (`constructor.prototype`).
    if (Object.hasOwn(o, 'constructor') && o.constructor !== null && typeof o.constructor === 'object') Reflect.deleteProperty(o, 'constructor');
    for (const k of Object.keys(o)) stack.push([o[k], depth + 1]);
  }
  return value;
}

/** Guest text with an escaped name, read by the strict reader: names right, depth bounded before its recursion. */
function readEscaped(text: string): unknown {
  try {
    return readJson(text, { maxDepth: MAX_DEPTH, uniqueNames: 'unchecked' });
  } catch (e) {
    if (e instanceof JsonTextError && e.fault.kind === 'depth') throw tooDeep();
    throw e;
  }
}

const tooDeep = () => new GuestError(`svc: a value nested deeper than ${MAX_DEPTH} levels`, 'TypeError');

export const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEvent = (v: unknown): v is EventName => typeof v === 'string' && (EVENTS as readonly string[]).includes(v);

export function malformed(what: string): GuestError {
  return new GuestError(`svc: malformed runtime call (${what})`, 'TypeError');
}

export function checkHead(v: unknown): Head | undefined {
  if (v === undefined) return undefined;
  if (!isRecord(v)) throw malformed('head');
  const { status, headers } = v;
  if (status !== undefined && (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599)) throw malformed('status');
  if (!Array.isArray(headers) || headers.length > MAX_HEADERS) throw malformed('headers');
  for (const h of headers) {
    if (!Array.isArray(h) || h.length !== 2 || typeof h[0] !== 'string' || typeof h[1] !== 'string') throw malformed('header');
    if (!HEADER_NAME.test(h[0]) || !HEADER_VALUE.test(h[1])) throw malformed('header');
  }
  return { ...(status !== undefined ? { status: status as number } : {}), headers: headers as [string, string][] };
}

export function checkOutcome(v: unknown): Outcome {
  if (!isRecord(v)) throw malformed('outcome');
  const head = checkHead(v.head);
  let notAllowed: EventName[] | undefined;
  if (v.notAllowed !== undefined) {
    if (!Array.isArray(v.notAllowed) || !v.notAllowed.every(isEvent)) throw malformed('notAllowed');
    notAllowed = v.notAllowed;
  }
  let error: Outcome['error'];
  if (v.error !== undefined) {
    const e = v.error;
    if (!isRecord(e) || typeof e.name !== 'string' || typeof e.message !== 'string' || (e.stack !== undefined && typeof e.stack !== 'string')) throw malformed('error');
    error = { name: e.name, message: e.message, ...(e.stack !== undefined ? { stack: e.stack as string } : {}) };
  }
  return { ...(head ? { head } : {}), ...(notAllowed ? { notAllowed } : {}), ...(error ? { error } : {}) };
}

/** Applies the guest's status and headers to the response, unless it is committed. */
export function applyHead(ex: Exchange, head: Head | undefined): void {
  const res = ex.res;
  if (!head || res.committed) return;
  if (head.status !== undefined) res.setStatus(head.status);
  const want = new Map(head.headers.filter(([name]) => !RESPONSE_SERVER_HEADERS.has(name)));
  for (const name of [...res.headers.keys()]) if (!want.has(name) && !RESPONSE_SERVER_HEADERS.has(name)) res.deleteHeader(name);
  for (const [name, value] of want) res.setHeader(name, value);
}

/** Refuses output that would take the response past maxOutputBytes, ending it (503, or cut) first. */
export function outputCap(call: Call, bytes: number): void {
  const { res, limits } = call.ex;
  if (res.written + bytes <= limits.maxOutputBytes) return;
  call.closed = true;
  complete(call.ex, new SvcError('handler-output-limit', `The handler wrote more than ${limits.maxOutputBytes} bytes.`));
  throw new GuestError(`svc: the response is over its size cap of ${limits.maxOutputBytes} bytes; it was cut`);
}

export function assertOpen(call: Call, fn: string): void {
  if (call.ex.res.ended) throw new GuestError(`${fn}: the response is already complete`);
}
