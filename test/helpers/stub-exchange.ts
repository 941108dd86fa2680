// An Exchange without a socket, for driving a HandlerRuntime directly (benches, sandbox tests):
// the real HttpResponse over a stub node:http response that accepts every write.

import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Exchange } from '../../src/exchange/exchange.ts';
import { resolveLimits, type Limits } from '../../src/exchange/limits.ts';
import { Logger, type LogSink } from '../../src/exchange/log.ts';
import type { ModelRegistry } from '../../src/model/registry.ts';
import type { Model } from '../../src/model/types.ts';
import { json } from '../../src/representation/json.ts';
import type { EventName } from '../../src/routing/events.ts';
import { HttpResponse } from '../../src/server/response.ts';
import type { Store } from '../../src/store/store.ts';

class StubResponse extends EventEmitter {
  statusCode = 200;
  destroyed = false;
  headersSent = false;
  readonly written: (string | Uint8Array)[] = [];
  setHeader() {}
  removeHeader() {}
  flushHeaders() {
    this.headersSent = true;
  }
  write(chunk: string | Uint8Array) {
    this.written.push(chunk);
    return true;
  }
  end(chunk?: string | Uint8Array) {
    if (chunk !== undefined) this.written.push(chunk);
  }
  destroy() {
    this.destroyed = true;
  }
}

/** A response sink that writes nowhere. */
export function stubSink(method = 'GET'): HttpResponse {
  // A request has its connection's socket (HttpResponse watches it while a response waits to be written).
  const socket = Object.assign(new EventEmitter(), { destroyed: false });
  return new HttpResponse({ method, destroyed: false, complete: true, socket } as unknown as IncomingMessage, new StubResponse() as unknown as ServerResponse, 30_000);
}

export interface StubExchangeOptions {
  collection: string;
  event?: EventName;
  id?: string;
  handler: string;
  limits?: Limits;
  log?: LogSink;
  store?: Store;
  models?: ModelRegistry;
  tenant?: string;
  fetchAllow?: string[];
}

export function stubExchange(o: StubExchangeOptions): Exchange {
  const event = o.event ?? (o.id === undefined ? 'list' : 'retrieve');
  const path = `/resources/${o.collection}${o.id === undefined ? '' : `/${o.id}`}`;
  return {
    id: 'stub',
    log: new Logger(o.log ?? (() => {}), { tenant: o.tenant ?? '', collection: o.collection, event }),
    tenant: o.tenant ?? '',
    store: o.store ?? (undefined as unknown as Store),
    models: o.models ?? (undefined as unknown as ModelRegistry),
    limits: o.limits ?? resolveLimits(),
    settings: { env: new Map(), fetchAllow: o.fetchAllow ?? [], fetchPrivate: [], limits: o.limits ?? resolveLimits() },
    handler: o.handler,
    target: { collection: o.collection, event, ...(o.id !== undefined ? { id: o.id } : {}) },
    model: { name: o.collection } as Model,
    method: 'GET',
    path,
    origin: 'http://localhost',
    query: new Map(),
    params: new Map(o.id === undefined ? [] : [[`${o.collection}Id`, o.id]]),
    headers: { host: 'localhost', accept: '*/*' },
    rawBody: Buffer.alloc(0),
    body: undefined,
    representation: json,
    res: stubSink(),
    dev: false,
    usage: { handlerCpuMs: 0 },
  };
}
