// The one host↔guest boundary: what enters an isolate, and the transport of every runtime call
// out of it (checked here, performed by the operation of that name in ops/).
//
// Rules (isolated-vm README, "Security"): no Reference, ExternalCopy, host function or host object
// ever reaches handler code. The prelude (runtime/prelude.js) receives one Reference, to the host
// call below, and keeps it in a closure that handler code cannot reach. Everything else crosses
// as JSON text: the host builds the request's JSON, and parses the guest's JSON with `__proto__`
// and object-valued `constructor` keys dropped, then checks its shape before using it (guest.ts).

import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import ivm from 'isolated-vm';
import type { Exchange } from '../exchange/exchange.ts';
import { JsonText } from '../handler/default-handler.ts';
import { EVENTS, handlerName } from '../routing/events.ts';
import { GuestError, HEADER_NAME, HEADER_VALUE, malformed, MAX_HEADERS, MAX_LOG_CHARS, MAX_LOG_LINE_CHARS, MAX_LOG_LINES, OUTCOME_DATA, outputCap, parseGuestJson, RESPONSE_SERVER_HEADERS, type Call } from './guest.ts';
import { OPS } from './ops/index.ts';
import { admitIntl } from './ops/intl.ts';

const PRELUDE = readFileSync(new URL('../../runtime/prelude.js', import.meta.url), 'utf8');

// Every context made from here on has V8's `gc` global: the prelude takes it away from handler code
// and keeps it to collect the ICU memory of Intl objects, which the isolate's limit does not count.
setFlagsFromString('--expose-gc');

/**
 * The calls whose text argument is something (every other call's is empty): response output,
 * bounded by the response's cap (maxOutputBytes, and the response is ended past it), or one
 * console line, bounded by MAX_LOG_LINE_CHARS. Console output is not response output: it has its
 * own bounds per request (MAX_LOG_LINES, MAX_LOG_CHARS, ops/log.ts).
 */
const TEXT_OF: ReadonlyMap<unknown, 'output' | 'log'> = new Map([
  ['send', 'output'],
  ['write', 'output'],
  ['render', 'output'],
  ['log', 'log'],
]);

/** The calls the prelude sends one-way (`applyIgnored`): no reply is read, unless the handler asks (`delegated`). */
const ONE_WAY: ReadonlySet<unknown> = new Set(['send', 'delegate']);

/** What the prelude is told: the rules it checks on the guest's side, defined once (guest.ts). */
const CONFIG = JSON.stringify({
  events: EVENTS,
  handlerNames: Object.fromEntries(EVENTS.map((e) => [e, handlerName(e)])),
  serverHeaders: [...RESPONSE_SERVER_HEADERS],
  headerName: HEADER_NAME.source,
  headerValue: HEADER_VALUE.source,
  maxHeaders: MAX_HEADERS,
  maxLogLines: MAX_LOG_LINES,
  maxLogChars: MAX_LOG_CHARS,
  maxLogLineChars: MAX_LOG_LINE_CHARS,
});

/** The three functions the prelude returns, as References owned by the host. */
export interface GuestApi {
  readonly install: ivm.Reference;
  readonly uninstall: ivm.Reference;
  readonly run: ivm.Reference;
}

/** What the host call needs from the isolate's owner. */
export interface CallRegistry {
  /** The app whose isolate this is ('app' in single-app mode). */
  readonly app: string;
  /** The request submitted under `token`, while it is not complete. */
  lookup(token: number): Call | undefined;
}

/** Evaluates the prelude in a fresh context: defines the runtime API, then locks the context down. */
export async function installRuntime(context: ivm.Context, calls: CallRegistry): Promise<GuestApi> {
  const api = await evaluatePrelude(context, new ivm.Reference(createHostCall(calls)));
  const [install, uninstall, run] = await Promise.all(['install', 'uninstall', 'run'].map((k) => api.get(k, { reference: true })));
  api.release();
  return { install: install!, uninstall: uninstall!, run: run! };
}

/**
 * The prelude evaluated in `context`, `hostCall` behind its runtime calls: a Reference to what it
 * returns (install, uninstall, run, and its JSON reader `json`, which only a test uses).
 */
export async function evaluatePrelude(context: ivm.Context, hostCall: ivm.Reference): Promise<ivm.Reference> {
  return (await context.evalClosure(PRELUDE, [hostCall, CONFIG], { filename: 'svc:runtime', result: { reference: true } })) as ivm.Reference;
}

/** The request as the guest's context keys see it. */
export function requestJson(ex: Exchange): string {
  return JSON.stringify({
    method: ex.method,
    path: ex.path,
    event: ex.target.event,
    collection: ex.target.collection,
    ...(ex.target.pathInfo !== undefined ? { pathInfo: ex.target.pathInfo } : {}),
    params: [...ex.params],
    headers: Object.entries(ex.headers),
    ...(ex.body !== undefined ? { body: ex.body } : {}),
    headersOut: [...ex.res.headers],
  });
}

/**
 * The host function behind the prelude's Reference. It never throws: every failure becomes a
 * reply that the prelude turns into an Error thrown inside the isolate. Calls name their request
 * by token; a token that names no request of this isolate gets nothing done.
 */
export function createHostCall(calls: CallRegistry) {
  return (op: unknown, payloadText: unknown, text: unknown, token: unknown): string | Promise<string> => {
    // A date format's locale and options, or a locale whose data Intl.Locale opens, before V8
    // does: admitted or refused for the whole process (ops/intl.ts), also from a handler's
    // top-level code, which runs in no request.
    if (op === 'intl') return admitIntl(calls.app, payloadText);
    const call = typeof token === 'number' ? calls.lookup(token) : undefined;
    if (!call) return reply(new GuestError('svc: no request is being served'));
    const done = perform(call, op, payloadText, text);
    // delegate() is sent one-way (runtime/prelude.js): its reply is kept for `delegated`.
    if (op === 'delegate') call.ending = done;
    if (ONE_WAY.has(op)) call.oneWay = done;
    return done;
  };
}

/** Every other call: checked, performed, answered as JSON. It never throws. */
async function perform(call: Call, op: unknown, payloadText: unknown, text: unknown): Promise<string> {
  // A one-way call does not hold the handler up: its time is not the host's (a handler that then
  // waits for a delegate's result does so in a `delegated` call, which counts).
  const oneWay = ONE_WAY.has(op);
  const started = performance.now();
  if (!oneWay) call.hostSince = started;
  try {
    if (call.closed && op !== 'finish') throw new GuestError('svc: this request was already answered');
    // After a refused one-way call, the handler's next call throws its error (`delegated` returns
    // it as the delegate's result); it may still log, and report how it ended.
    if (call.refused && op !== 'finish' && op !== 'delegated' && op !== 'log') throw call.refused;
    if (typeof op !== 'string' || !Object.hasOwn(OPS, op)) throw malformed('operation');
    if (typeof payloadText !== 'string') throw malformed('payload');
    if (typeof text !== 'string') throw malformed('text');
    switch (TEXT_OF.get(op)) {
      case 'output':
        if (text.length > call.ex.limits.maxOutputBytes + 1) {
          outputCap(call, Buffer.byteLength(text));
          throw malformed('text');
        }
        break;
      case 'log':
        if (text.length > MAX_LOG_LINE_CHARS) throw malformed('text');
        break;
      default:
        if (text !== '') throw malformed('text');
    }
    // Its length bounded first (MAX_PAYLOAD_CHARS): over it, nothing is parsed.
    const payload = payloadText === '' ? '' : parseGuestJson(payloadText, op === 'finish' ? OUTCOME_DATA : undefined);
    const value = await OPS[op]!(call, payload, text);
    return value instanceof JsonText ? `{"value":${value.text}}` : JSON.stringify({ value: value ?? null });
  } catch (err) {
    let error: GuestError;
    if (err instanceof GuestError) error = err;
    else {
      call.ex.log.error(`runtime call ${String(op)} failed: ${(err as Error)?.stack ?? String(err)}`);
      error = new GuestError('svc: the server could not complete this call');
    }
    // Nobody waits for a one-way call's reply: its failure is kept for the handler's next call and the request's end.
    if (oneWay && !call.closed) call.refused ??= error;
    // Nor for `finish`'s: an async handler's outcome the host refused is its failure, not a promise that never settled.
    if (op === 'finish') call.finished ??= { error: { name: error.type, message: error.message } };
    return reply(error, call.closed);
  } finally {
    if (!oneWay) {
      call.hostMs += performance.now() - started;
      call.hostSince = undefined;
    }
  }
}

function reply(err: GuestError, closed = false): string {
  return JSON.stringify({ error: { type: err.type, message: err.message }, ...(closed ? { closed } : {}) });
}
