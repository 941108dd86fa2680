// The one host↔guest boundary: what enters an isolate, what leaves it, and the host half of every runtime call.
//
// Rules (isolated-vm README, "Security"): no Reference, ExternalCopy, host function or host object
// ever reaches handler code. The prelude (runtime/prelude.js) receives one Reference, to the host
// call below, and keeps it in a closure that handler code cannot reach. Everything else crosses
// as JSON text: the host builds the request's JSON, and parses the guest's JSON with `__proto__`
// and object-valued `constructor` keys dropped, then checks its shape before using it.

import { readFileSync } from 'node:fs';
import ivm from 'isolated-vm';
import { SvcError, statusTitle, type Problem } from '../errors.ts';
import { runDefault, type DelegateResult } from '../handler/default-handler.ts';
import { countMembers, createMember, deleteMember, getMember, listMembers, updateMember } from '../handler/members.ts';
import { EVENTS, handlerName, type EventName } from '../routing/events.ts';
import type { Exchange } from '../server/exchange.ts';
import type { Limits } from './options.ts';

const PRELUDE = readFileSync(new URL('../../runtime/prelude.js', import.meta.url), 'utf8');

/**
 * The most characters a runtime call's JSON payload may have (status and headers, parameters, a
 * body, model-API arguments, an outcome), so that no call makes the host's event loop parse
 * megabytes. Output goes as the separate text argument, capped by maxOutputBytes and not parsed.
 */
const MAX_PAYLOAD_CHARS = 4 * 1024 * 1024;
/** The most levels of nesting accepted in guest JSON. */
const MAX_DEPTH = 128;
/**
 * Console output one request may log (the prelude stops at the same numbers): more is dropped,
 * with one line saying so, so that a request cannot flood the log (and the disk under it).
 */
const MAX_LOG_LINES = 1000;
const MAX_LOG_CHARS = 1024 * 1024;
/** The most response headers a handler may set. */
const MAX_HEADERS = 200;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const JSON_TYPE = 'application/json; charset=utf-8';
/**
 * Headers that frame the message or manage the connection: the server owns them. A handler's
 * `content-length` would let it write past the declared length, and the excess would be read by
 * the client (or a proxy sharing the connection) as the response to its next request (response
 * splitting); `transfer-encoding`, `connection` and the other hop-by-hop headers are as bad. The
 * prelude refuses them; the host ignores them from the guest and keeps its own.
 */
export const SERVER_HEADERS: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'proxy-connection', 'te', 'trailer']);

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
  readonly limits: Limits;
  /** `tenant/collection event`, for log lines. */
  readonly tag: string;
  delegated?: DelegateResult;
  /** The outcome an async handler reported through `finish`. */
  finished?: Outcome;
  /** The isolate began running it (it may have waited behind other requests). */
  started: boolean;
  /** Set when the host has answered (or given up on) this request: later calls are refused. */
  closed: boolean;
  /** Milliseconds spent in host calls, and the start of the one under way (wall-limit accounting). */
  hostMs: number;
  hostSince?: number;
  /** Milliseconds this request's model-API calls kept the store busy (see Limits.modelLimitMs). */
  modelMs?: number;
  /** Console lines and characters this request logged (see MAX_LOG_LINES). */
  logLines?: number;
  logChars?: number;
  /** The limit this request broke, when the watchdog disposed its isolate for it. */
  breach?: 'cpu' | 'wall' | 'request';
}

/** The three functions the prelude returns, as References owned by the host. */
export interface GuestApi {
  readonly install: ivm.Reference;
  readonly uninstall: ivm.Reference;
  readonly run: ivm.Reference;
}

/** Raised by a host call: becomes an `Error` (or `TypeError`) thrown inside the isolate. */
class GuestError extends Error {
  readonly type: 'Error' | 'TypeError';
  constructor(message: string, type: 'Error' | 'TypeError' = 'Error') {
    super(message);
    this.type = type;
  }
}

/** What the host call needs from the isolate's owner. */
export interface CallRegistry {
  /** The request submitted under `token`, while it is not complete. */
  lookup(token: number): Call | undefined;
  /** The isolate began running this request. */
  started(call: Call): void;
}

// ---------------------------------------------------------------------------------------------
// Into the isolate.

/** Evaluates the prelude in a fresh context: defines the runtime API, then locks the context down. */
export async function installRuntime(context: ivm.Context, calls: CallRegistry): Promise<GuestApi> {
  const config = JSON.stringify({ events: EVENTS, handlerNames: Object.fromEntries(EVENTS.map((e) => [e, handlerName(e)])) });
  const hostCall = new ivm.Reference(createHostCall(calls));
  const api = (await context.evalClosure(PRELUDE, [hostCall, config], {
    filename: 'svc:runtime',
    result: { reference: true },
  })) as ivm.Reference;
  const [install, uninstall, run] = await Promise.all(['install', 'uninstall', 'run'].map((k) => api.get(k, { reference: true })));
  api.release();
  return { install: install!, uninstall: uninstall!, run: run! };
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

// ---------------------------------------------------------------------------------------------
// Out of the isolate: parse, neutralise, check.

/** JSON from the guest: `__proto__` keys and object-valued `constructor` keys are dropped, depth is bounded. */
export function parseGuestJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_DEPTH) throw new GuestError(`svc: a value nested deeper than ${MAX_DEPTH} levels`, 'TypeError');
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

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEvent = (v: unknown): v is EventName => typeof v === 'string' && (EVENTS as readonly string[]).includes(v);

function malformed(what: string): GuestError {
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
  const want = new Map(head.headers.filter(([name]) => !SERVER_HEADERS.has(name)));
  for (const name of [...res.headers.keys()]) if (!want.has(name) && !SERVER_HEADERS.has(name)) res.deleteHeader(name);
  for (const [name, value] of want) res.setHeader(name, value);
}

// ---------------------------------------------------------------------------------------------
// The host half of the runtime calls.

type Op = (call: Call, payload: unknown, text: string) => Promise<unknown> | unknown;

function outputCap(call: Call, bytes: number): void {
  const res = call.ex.res;
  if (res.written + bytes <= call.limits.maxOutputBytes) return;
  const err = new SvcError('handler-output-limit', `The handler wrote more than ${call.limits.maxOutputBytes} bytes.`);
  // Answer now: 503 while nothing is committed, else cut the connection so the client sees it.
  call.closed = true;
  res.sendError(err);
  throw new GuestError(`svc: the response is over its size cap of ${call.limits.maxOutputBytes} bytes; it was cut`);
}

function assertOpen(call: Call, fn: string): void {
  if (call.ex.res.ended) throw new GuestError(`${fn}: the response is already complete`);
}

const OPS: Readonly<Record<string, Op>> = {
  async write(call, payload, text) {
    assertOpen(call, 'echo');
    const head = checkHead(payload === '' ? undefined : payload);
    outputCap(call, Buffer.byteLength(text));
    applyHead(call.ex, head);
    await call.ex.res.write(text);
    return null;
  },

  /** A one-way write: the handler does not wait for it (see WAIT_EVERY in the prelude). */
  send(call, payload, text) {
    return OPS.write!(call, payload, text);
  },

  async delegate(call, payload) {
    const ex = call.ex;
    if (call.delegated) throw new GuestError('svc.delegate(): delegate() already completed this response');
    assertOpen(call, 'svc.delegate()');
    if (!isRecord(payload)) throw malformed('delegate');
    applyHead(ex, checkHead(payload.head));
    if (payload.params !== undefined) {
      if (!Array.isArray(payload.params) || !payload.params.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string')) {
        throw malformed('params');
      }
      ex.params.clear();
      for (const [k, v] of payload.params as [string, string][]) ex.params.set(k, v);
    }
    if (payload.body !== undefined) {
      if (payload.body !== null && !isRecord(payload.body)) throw malformed('body');
      ex.body = payload.body === null ? undefined : payload.body;
    }
    let result: DelegateResult = {};
    call.delegated = result;
    try {
      result = await runDefault(ex, { collect: true });
    } catch (err) {
      // The default handler's errors are its response: render them so that delegate() returns complete.
      if (err instanceof SvcError) ex.res.sendError(err);
      else {
        call.limits.log(`svc: [${call.tag}] default handler failed: ${(err as Error)?.stack ?? String(err)}`);
        ex.res.sendError(new SvcError('internal-error', 'The server failed to answer this request.'));
      }
    }
    if (!ex.res.ended) ex.res.end();
    call.delegated = result;
    return {
      status: ex.res.status,
      headers: [...ex.res.headers],
      member: result.member !== undefined,
      collection: result.collection !== undefined,
    };
  },

  resource(call, payload) {
    if (!isRecord(payload) || (payload.which !== 'member' && payload.which !== 'collection')) throw malformed('resource');
    return call.delegated?.[payload.which] ?? null;
  },

  async render(call, payload, text) {
    const ex = call.ex;
    const res = ex.res;
    assertOpen(call, 'render()');
    if (!isRecord(payload) || (payload.view !== 'JSON' && payload.view !== 'error')) throw malformed('render');
    if (payload.message !== undefined && typeof payload.message !== 'string') throw malformed('message');
    const head = checkHead(payload.head);
    let body = text;
    if (payload.view === 'error') {
      const status = head?.status ?? 500;
      const problem: Problem = {
        type: 'about:blank',
        title: statusTitle(status),
        status,
        detail: (payload.message as string | undefined) ?? statusTitle(status),
        code: 'handler-reported',
      };
      body = JSON.stringify(problem);
    }
    outputCap(call, Buffer.byteLength(body));
    if (!res.committed) {
      applyHead(ex, head);
      if (payload.view === 'error') res.setStatus(head?.status ?? 500);
      res.setHeader('content-type', payload.view === 'error' ? 'application/problem+json' : JSON_TYPE);
      res.end(body);
    } else {
      await res.write(body);
      res.end();
    }
    return null;
  },

  async model(call, payload) {
    if (!isRecord(payload) || typeof payload.collection !== 'string' || typeof payload.method !== 'string' || !Array.isArray(payload.args)) throw malformed('model');
    const { collection: name, method, args } = payload as { collection: string; method: string; args: unknown[] };
    const fn = `svc.collection(${JSON.stringify(name)})${method === 'open' ? '' : `.${method}()`}`;
    const app = call.ex.app;
    // Store work runs on the server's event loop, not in the isolate: it has a budget of its own.
    if ((call.modelMs ?? 0) >= call.limits.modelLimitMs) {
      throw new GuestError(`${fn}: this request used its ${call.limits.modelLimitMs} ms of model-API time; do less store work per request`);
    }
    const started = performance.now();
    try {
      const model = app.models.get(name);
      if (!model) throw new GuestError(`${fn}: this app declares no model "${name}"`);
      const query = (i: number) => {
        if (!isRecord(args[i])) throw malformed('query');
        return args[i] as Record<string, unknown>;
      };
      const member = (i: number) => {
        if (!isRecord(args[i])) throw malformed('member');
        return args[i] as Record<string, unknown>;
      };
      switch (method) {
        case 'open':
          return null;
        case 'list':
          return await listMembers(app, model, query(0));
        case 'count':
          return await countMembers(app, model, query(0));
        case 'retrieve':
          return await getMember(app, model, args[0]);
        case 'create':
          return await createMember(app, model, member(0));
        case 'update':
          try {
            return await updateMember(app, model, args[0], member(1));
          } catch (err) {
            if (err instanceof SvcError && err.code === 'member-not-found') return null;
            throw err;
          }
        case 'delete':
          return await deleteMember(app, model, args[0]);
        default:
          throw malformed('model method');
      }
    } catch (err) {
      if (err instanceof GuestError) throw err;
      if (err instanceof SvcError) throw new GuestError(`${fn}: ${err.message}`);
      call.limits.log(`svc: [${call.tag}] ${fn} failed: ${(err as Error)?.stack ?? String(err)}`);
      throw new GuestError(`${fn}: the store failed`);
    } finally {
      call.modelMs = (call.modelMs ?? 0) + (performance.now() - started);
    }
  },

  log(call, payload, text) {
    if (!isRecord(payload) || (payload.level !== 'log' && payload.level !== 'warn' && payload.level !== 'error')) throw malformed('log');
    const lines = (call.logLines ?? 0) + 1;
    const chars = (call.logChars ?? 0) + text.length;
    call.logLines = lines;
    call.logChars = chars;
    if (lines > MAX_LOG_LINES || chars > MAX_LOG_CHARS) {
      // Said once: the call that passes the cap; the prelude sends no more after it.
      if (lines - 1 <= MAX_LOG_LINES && chars - text.length <= MAX_LOG_CHARS) {
        call.limits.log(`svc: [${call.tag}] console output over ${MAX_LOG_LINES} lines or ${MAX_LOG_CHARS} characters: the rest of this request's is dropped`);
      }
      return null;
    }
    // Escape control characters, so that a handler cannot forge log lines.
    const line = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => JSON.stringify(c).slice(1, -1));
    call.limits.log(`svc: [${call.tag}] ${payload.level}: ${line}`);
    return null;
  },

  finish(call, payload) {
    call.finished = checkOutcome(payload);
    return null;
  },
};

/**
 * The host function behind the prelude's Reference. It never throws: every failure becomes a
 * reply that the prelude turns into an Error thrown inside the isolate. Calls name their request
 * by token; a token that names no request of this isolate gets nothing done.
 */
function createHostCall(calls: CallRegistry) {
  return (op: unknown, payloadText: unknown, text: unknown, token: unknown): string | Promise<string> => {
    const call = typeof token === 'number' ? calls.lookup(token) : undefined;
    if (!call) return reply(new GuestError('svc: no request is being served'));
    // The most frequent call, one-way and synchronous: no promise, no JSON.
    if (op === 'start') {
      call.started = true;
      calls.started(call);
      return '';
    }
    return perform(call, op, payloadText, text);
  };
}

/** Every other call: checked, performed, answered as JSON. It never throws. */
async function perform(call: Call, op: unknown, payloadText: unknown, text: unknown): Promise<string> {
  // A one-way call does not hold the handler up: its time is not the host's.
  const oneWay = op === 'send';
  const started = performance.now();
  if (!oneWay) call.hostSince = started;
  try {
    if (call.closed && op !== 'finish') throw new GuestError('svc: this request was already answered');
    if (typeof op !== 'string' || !Object.hasOwn(OPS, op)) throw malformed('operation');
    if (typeof payloadText !== 'string') throw malformed('payload');
    if (payloadText.length > MAX_PAYLOAD_CHARS) throw new GuestError(`svc: the data of this call is over ${MAX_PAYLOAD_CHARS} characters as JSON`);
    if (typeof text !== 'string' || text.length > call.limits.maxOutputBytes + 1) {
      if (typeof text === 'string') outputCap(call, Buffer.byteLength(text));
      throw malformed('text');
    }
    const payload = payloadText === '' ? '' : parseGuestJson(payloadText);
    const value = await OPS[op]!(call, payload, text);
    return JSON.stringify({ value: value ?? null });
  } catch (err) {
    if (err instanceof GuestError) return reply(err, call.closed);
    call.limits.log(`svc: [${call.tag}] runtime call ${String(op)} failed: ${(err as Error)?.stack ?? String(err)}`);
    return reply(new GuestError('svc: the server could not complete this call'));
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
