// The HTTP server: a request reads as route → app → model → body → negotiate → exchange → handler runtime → complete.

import { randomUUID } from 'node:crypto';
import { createServer, maxHeaderSize, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { SvcError } from '../errors.ts';
import { complete, type Ending } from '../exchange/complete.ts';
import type { ServedApp } from '../exchange/app.ts';
import type { Exchange } from '../exchange/exchange.ts';
import type { Limits } from '../exchange/limits.ts';
import type { Logger } from '../exchange/log.ts';
import type { ResponseSink } from '../exchange/response.ts';
import { Slices } from '../model/documents.ts';
import { typeMetadata } from '../model/metadata.ts';
import { memberIdParam, queryParams } from '../model/query.ts';
import { typeFromText } from '../model/validate.ts';
import type { Model } from '../model/types.ts';
import { byMediaType, REPRESENTATIONS } from '../representation/index.ts';
import { negotiate } from '../representation/negotiate.ts';
import { allowHeader, EVENTS, isMemberEvent } from '../routing/events.ts';
import { openApiJson, type OpenApiCollection } from '../routing/openapi.ts';
import { ALL_METHODS, route, type OpsEndpoint } from '../routing/route.ts';
import { contentCodings, contentTypeOf, readBody, UTF8_CHARSETS, utf8Text } from './body.ts';
import type { Metrics } from './metrics.ts';
import { HttpResponse, sendEnded, sendConnectionProblem } from './response.ts';

export interface ServerOptions {
  /**
   * The app serving a request, from its Host header as served (a plain host[:port], without a name's
   * trailing dot; '' when it has none or it is an IP address, which names no app); undefined → 404
   * (unknown tenant). An app it
   * returns is held for the request until `releaseApp(app)`, called once the request is complete
   * (answered, failed or cut off): an idle tenant is closed only when no request holds it. An
   * error for a tenant that exists but cannot be opened carries its name in `tenant`.
   */
  resolveApp(host: string): Promise<ServedApp | undefined> | ServedApp | undefined;
  releaseApp?(app: ServedApp): void;
  limits: Limits;
  dev: boolean;
  /** Origin of absolute URLs, `{tenant}` standing for the app's name; unset: `http://<Host>`. */
  publicUrl?: string;
  log: Logger;
  /** Why the server cannot serve yet (start-up checks running, store unreachable); undefined when it can. */
  ready(): Promise<string | undefined>;
  metrics: Metrics;
  /** Requests one app may have in progress at once; more are 503 `tenant-busy`. */
  tenantConcurrency: number;
  /** Origins browsers may call from (`*` for any); unset: no CORS headers at all. */
  cors?: readonly string[];
}

export interface SvcServer {
  readonly server: Server;
  /**
   * Stops accepting, lets in-flight requests finish (at most `graceMs`), then resolves. When the
   * grace is over every connection is closed and `graceOver` is called, to stop what still runs
   * for the requests left (their handlers): the promise resolves once they have ended.
   */
  shutdown(graceMs?: number, graceOver?: () => void): Promise<void>;
}

/**
 * Open connections from which whole responses are sent in bursts, at the end of each turn of the
 * event loop (HttpResponse `batched`). Retrieves by id, batched against not: on 32 connections 1.42
 * times the rate, on 8 1.16, on 4 1.08, on 3 1.07; on 2 0.96 and on one 0.95, where a response only
 * waits (`AB_CONNECTIONS=<n> node bench/ab.ts`, each beside an A/A run of the same command, which
 * read 0.99-1.03: this machine favours one side by a few percent).
 */
const BATCH_CONNECTIONS = 3;

const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,251}[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/;

/**
 * A name's one trailing dot, before the port if any: `acme.example.com.` is the name written
 * fully qualified (RFC 1034 §3.1; RFC 3986 §3.2.2 allows it in a URL's host), the same host as
 * `acme.example.com`. Only after a letter, digit or `_`: `.`, `..`, `a..` and `[::1].` keep theirs.
 */
const TRAILING_DOT = /(?<=[A-Za-z0-9_])\.(?=(?::\d*)?$)/;

/** A Host header as the server serves it: `host` for URLs, and whether it is an IP address (then it names no tenant). */
interface PlainHost {
  readonly host: string;
  readonly address: boolean;
}

/**
 * The Host header as the server serves it and writes it into URLs: a plain host[:port], the port
 * 1–65535 (RFC 9112 §3.2: else 400), without a name's trailing dot; undefined when it is none.
 * Port 0 is no port a client can connect to: a Host naming it did not reach this server, and a
 * URL built from it would lead nowhere.
 */
function plainHost(header: string): PlainHost | undefined {
  const host = header.replace(TRAILING_DOT, '');
  const match = HOST.exec(host);
  if (match === null) return undefined;
  const port = match[1];
  if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535)) return undefined;
  // An IP literal, or a name that ends in a number (which URLs read as IPv4: `1.2.3.4.5`), must
  // be one a URL can hold: `[1.2.3.4]` and `[:::::]` fit the pattern and no URL. Without its dot,
  // `127.0.0.1.` is the address it is to a URL, and names no tenant either.
  const name = port === undefined ? host : host.slice(0, -port.length - 1);
  const address = name.startsWith('[') || NUMERIC_LAST_LABEL.test(name);
  return !address || URL.canParse(`http://${host}/`) ? { host, address } : undefined;
}

/** A host name whose last label is a number (decimal or hex), as URLs read IPv4 addresses. */
const NUMERIC_LAST_LABEL = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/i;

/**
 * plainHost's answers for the Host headers seen lately (null: refused): clients send the same
 * few, and the check (a pattern and, for an address, a URL parse) cost a retrieve about 1 µs of
 * its 85 in the server. Emptied when it holds KNOWN_HOSTS, so that a client sending ever new ones
 * cannot grow it.
 */
const knownHosts = new Map<string, PlainHost | null>();
const KNOWN_HOSTS = 256;

function plainHostKnown(header: string): PlainHost | undefined {
  let plain = knownHosts.get(header);
  if (plain === undefined) {
    plain = plainHost(header) ?? null;
    if (knownHosts.size >= KNOWN_HOSTS) knownHosts.clear();
    knownHosts.set(header, plain);
  }
  return plain ?? undefined;
}

/**
 * Bytes of a request's line and headers together: Node's bound (16 KiB unless its
 * --max-http-header-size says otherwise), or, when --max-url is raised past what that leaves for
 * headers, the URL's bound and HEADERS_BESIDE_URL, so that a URL within --max-url is never
 * refused as a head too large (431) before it is measured against --max-url (414).
 */
export function headBytesFor(maxUrlBytes: number): number {
  return Math.max(maxHeaderSize, maxUrlBytes + HEADERS_BESIDE_URL);
}
/** Bytes of the request line's method and version and of the headers, beside the URL (8 KiB). */
const HEADERS_BESIDE_URL = 8 * 1024;

/**
 * The problem answering what node:http reports on a connection ('clientError'): a request it could
 * not parse or that did not arrive in time, with the status Node itself would answer; undefined for
 * the connection's own errors (ECONNRESET, EPIPE), where there is no one to answer.
 */
function clientErrorProblem(err: NodeJS.ErrnoException & { reason?: string }, requestTimeoutMs: number, headBytes: number): SvcError | undefined {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new SvcError('request-timeout', `The request's headers and body did not arrive within ${requestTimeoutMs} ms: send the whole request sooner.`);
    case 'HPE_HEADER_OVERFLOW':
      return new SvcError('headers-too-large', `The request line and headers are over ${headBytes} bytes together: send fewer or shorter headers, or a shorter URL.`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new SvcError('body-too-large', 'The chunk extensions of the body are too long: send the body without chunk extensions.');
  }
  if (!err.code?.startsWith('HPE_')) return undefined;
  // The parser's reason ("Invalid header value char", "Duplicate Content-Length") says what was wrong; it names no header.
  return new SvcError('malformed-request', `The request is not well-formed HTTP/1.1 (${err.reason ?? err.code}): send a valid request line, header lines and body framing.`);
}

/** A client's X-Request-Id is kept when it is this plain; otherwise the server makes one. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What the request log and metrics learn of a request while it is served. */
interface RequestState {
  tenant?: string;
  /** The app resolveApp() gave the request, released when it is complete. */
  app?: ServedApp;
  bytesIn: number;
  usage: { handlerCpuMs: number };
  /** It counts toward its app's requests in progress. */
  holds: boolean;
  /** The path of the request's target, without query (and, in absolute form, without scheme and authority): for the request log. */
  path?: string;
}

/** Response headers a browser script may read (README "CORS"). */
const CORS_EXPOSED = 'ETag, Location, Link, X-Total-Count, X-Request-Id, Retry-After';
/** Request headers a preflight may ask for. */
const CORS_REQUEST_HEADERS = new Set(['accept', 'content-type', 'if-match', 'if-none-match', 'x-request-id']);

/** 204 for a CORS preflight: the methods served, the request headers allowed, for 10 minutes. */
function answerPreflight(req: IncomingMessage, sink: ResponseSink, methods: string): void {
  sink.setStatus(204);
  if (sink.headers.has('access-control-allow-origin')) {
    sink.setHeader('access-control-allow-methods', methods);
    const asked = String(req.headers['access-control-request-headers'] ?? '').toLowerCase().split(',').map((h) => h.trim());
    const allowed = asked.filter((h) => CORS_REQUEST_HEADERS.has(h));
    if (allowed.length > 0) sink.setHeader('access-control-allow-headers', allowed.join(', '));
    sink.setHeader('access-control-max-age', '600');
  }
  sink.end();
}

/** An absolute-form request target: its scheme, its authority (the host, with an optional port) and the rest (path and query, maybe empty). */
const ABSOLUTE_FORM = /^(https?):\/\/([^/?#]*)([/?][^#]*)?$/i;

/**
 * A host[:port] as two spellings of one host compare: plain (no trailing dot), in lower case,
 * without the scheme's default port; undefined when it is not a plain host.
 */
function comparedHost(hostPort: string, scheme: string): string | undefined {
  const host = plainHostKnown(hostPort)?.host.toLowerCase();
  return host?.replace(scheme.toLowerCase() === 'https' ? /:443$/ : /:80$/, '');
}

/** The request being answered on a connection (the latest, when requests are pipelined), its response, and when the requests up to it are done. */
interface Answering {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly sink: HttpResponse;
  /** Settled when this request and every one before it on the connection are done. */
  allDone: Promise<unknown>;
  /** Settled when every unsafe request up to this one is done (undefined: none was unsafe). */
  unsafeDone: Promise<unknown> | undefined;
}

function hostCount(req: IncomingMessage): number {
  let n = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') n++;
  return n;
}

function headerRecord(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function sendJson(res: ResponseSink, status: number, value: unknown): void {
  res.setStatus(status);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(value));
}

/** A 200 whose body is `json`, the bytes of JSON text. */
function sendJsonBytes(res: ResponseSink, json: Buffer): void {
  res.setStatus(200);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', String(json.length));
  void res.write(json);
  res.end();
}

/** The OpenAPI document of each app as last built, and what it was built from. */
const openApiBuilt = new WeakMap<ServedApp, { key: string; json: Promise<Buffer> }>();

/**
 * The OpenAPI document of `app` (README "OpenAPI"), built again only when its models, the events
 * its handlers serve or the origin changed; the checks of its handlers run in slices, as
 * ModelRegistry.all() does.
 */
async function openApiJsonOf(app: ServedApp, origin: string): Promise<Buffer> {
  const { models, state } = await app.models.all();
  const collections: OpenApiCollection[] = [];
  const slices = new Slices();
  for (const model of models) {
    const handler = app.handlerFile(model.name);
    if (handler !== undefined) collections.push({ model, events: (await app.runtime.events(handler)) ?? EVENTS });
    await slices.pause();
  }
  const key = [origin, state, ...collections.map((c) => `${c.model.name}\0${c.events.join(',')}`)].join('\n');
  let built = openApiBuilt.get(app);
  if (built?.key !== key) {
    built = { key, json: openApiJson({ app: app.name, origin, collections }) };
    openApiBuilt.set(app, built);
  }
  return built.json;
}

/** The body of a create or update as the handler is given it (SPEC §8, `/request/body`), or the error that refuses it. */
function memberBody(req: IncomingMessage, rawBody: Buffer, model: Model): Record<string, unknown> {
  // The body is read only here, and in no content coding (RFC 9110 §8.4): 415, and Accept-Encoding
  // says which the server takes (§12.5.3). Only these two are given the body parsed (SPEC §8, `/request/body`).
  const codings = contentCodings(req.headers['content-encoding']);
  if (codings.length > 0) {
    throw new SvcError('unsupported-media-type', `Content-Encoding ${codings.join(', ')} is not accepted: send the body uncompressed (no Content-Encoding).`, {
      headers: { 'accept-encoding': 'identity' },
    });
  }
  const { mediaType, charset } = contentTypeOf(req.headers['content-type']);
  const reader = byMediaType(mediaType);
  if (!reader) {
    throw new SvcError('unsupported-media-type', `Content-Type ${mediaType} is not accepted; send ${REPRESENTATIONS.map((x) => x.mediaType).join(' or ')}.`);
  }
  if (charset !== undefined && !UTF8_CHARSETS.has(charset)) {
    throw new SvcError('unsupported-media-type', `Content-Type charset ${JSON.stringify(charset)} is not accepted: send the body in UTF-8 (charset=utf-8, or no charset).`);
  }
  const text = utf8Text(rawBody);
  if (text === undefined) throw new SvcError(reader.bodyError, 'The body is not valid UTF-8: send it encoded in UTF-8.');
  const parsed = reader.parseMember(text, model);
  // Values read as text (Atom) are typed by the model now: a handler sees numbers as numbers.
  return parsed.text ? typeFromText(model, parsed.values) : parsed.values;
}

export function createSvcServer(opts: ServerOptions): SvcServer {
  const { limits, dev } = opts;
  /** The responses of the requests in progress: shutdown waits for them, and those not yet sent say `Connection: close`. */
  const answers = new Set<HttpResponse>();
  let closing = false;
  let idle: (() => void) | undefined;

  const cors = opts.cors === undefined ? undefined : new Set(opts.cors);
  /** The Access-Control-Allow-Origin for a request's Origin, or undefined when CORS does not allow it. */
  const corsOrigin = (origin: string | undefined): string | undefined => {
    if (cors === undefined || origin === undefined) return undefined;
    if (cors.has('*')) return '*';
    return cors.has(origin) ? origin : undefined;
  };

  /** Origin of absolute URLs: the configured public URL, else the request's Host. */
  const originOf = (host: string, app: string): string => (opts.publicUrl === undefined ? `http://${host}` : opts.publicUrl.replaceAll('{tenant}', app));

  /** Requests in progress per app (tenant name; '' in single-app mode). */
  const busy = new Map<string, number>();

  async function serveOps(name: OpsEndpoint, sink: ResponseSink): Promise<void> {
    switch (name) {
      case 'healthz':
        return sendJson(sink, 200, { status: 'ok' });
      case 'readyz': {
        const reason = await opts.ready();
        if (reason !== undefined) throw new SvcError('not-ready', reason, { headers: { 'retry-after': '1' } });
        return sendJson(sink, 200, { status: 'ready' });
      }
      case 'metrics': {
        const text = await opts.metrics.render();
        sink.setHeader('content-type', opts.metrics.contentType);
        sink.end(text);
        return;
      }
    }
  }

  /** Serves one request; `ending.log` is narrowed as the request is identified. */
  async function handle(req: IncomingMessage, res: ServerResponse, ending: Ending & { log: Logger }, requestId: string, state: RequestState): Promise<void> {
    const sink = ending.res;
    // RFC 9112 §3.2.2: a server MUST accept the absolute-form (`GET http://host/path`), and then
    // takes the host from it, not from the Host header. A Host that names another host is refused
    // rather than ignored: a proxy in front that routes or authorises by Host and passes the
    // request line on as it is would otherwise have svc serve another tenant than it checked.
    const absolute = ABSOLUTE_FORM.exec(req.url ?? '/');
    const rest = absolute?.[3] ?? '';
    const target = absolute ? (rest.startsWith('/') ? rest : `/${rest}`) : (req.url ?? '/');
    const q = target.indexOf('?');
    const pathname = q === -1 ? target : target.slice(0, q);
    state.path = pathname;
    if (absolute && req.headers.host !== undefined && comparedHost(req.headers.host, absolute[1]!) !== comparedHost(absolute[2]!, absolute[1]!)) {
      throw new SvcError('invalid-header', 'The Host header names another host than the request target: send the same host in both, or the path alone as the target.');
    }
    const hostField = absolute ? absolute[2] : req.headers.host;
    // The one expectation there is (RFC 9110 §10.1.1); node:http hands every request with Expect
    // here (checkContinue, checkExpectation below) rather than answer a bare 417 or a 100 of its own.
    const expect = req.headers.expect?.trim().toLowerCase();
    if (expect !== undefined && expect !== '100-continue') {
      throw new SvcError('expectation-failed', `The expectation ${JSON.stringify(req.headers.expect)} cannot be met: send no Expect header, or Expect: 100-continue.`);
    }
    if (Buffer.byteLength(req.url ?? '/') > limits.maxUrlBytes) {
      throw new SvcError('uri-too-long', `The URL is over ${limits.maxUrlBytes} bytes.`);
    }
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is 400 (HTTP/1.0 may leave it out). Checked
    // here rather than by node:http (requireHostHeader), whose 400 has no body.
    if (hostField === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
      throw new SvcError('invalid-header', 'The request has no Host header: send one (HTTP/1.1 requires it).');
    }
    // The path as sent (origin-form, or that of an absolute-form target above) is matched, never normalised.
    const method = req.method ?? 'GET';
    // CONNECT asks for a tunnel to the host:port it names (RFC 9110 §9.3.6): this server is no proxy.
    // A CONNECT to one of its paths is routed like any other method it does not serve.
    if (method === 'CONNECT' && !target.startsWith('/')) {
      throw new SvcError('method-not-allowed', 'CONNECT is not a method of this server: it is no proxy.', { headers: { allow: ALL_METHODS } });
    }
    // A CORS preflight asks about a method; it is answered for the resource a GET would reach.
    const preflight = method === 'OPTIONS' && cors !== undefined && req.headers['access-control-request-method'] !== undefined;
    const r = route(preflight ? 'GET' : method, pathname);
    if (preflight && r.kind !== 'resource') return answerPreflight(req, sink, 'GET, HEAD');
    if (r.kind === 'ops') return serveOps(r.name, sink);

    // The Host header becomes part of absolute URLs (Location, Atom): only a plain host[:port] is trusted.
    // Node keeps the first of several Host headers, a proxy may use the last: more than one is 400 (RFC 9112 §3.2).
    if (hostCount(req) > 1) throw new SvcError('invalid-header', 'The request has more than one Host header: send exactly one.');
    const plain = plainHostKnown(hostField ?? 'localhost');
    if (plain === undefined) {
      throw new SvcError(
        'invalid-header',
        absolute
          ? "The request target's host must be a host name or address with an optional port from 1 to 65535."
          : 'The Host header must be a host name or address with an optional port from 1 to 65535.',
      );
    }
    const host = plain.host;
    // A request without Host names no tenant ('localhost' is only the origin of its URLs), nor does
    // an address: `127.0.0.1` is not tenant `127`'s, whatever a proxy passes on as Host.
    let app: ServedApp | undefined;
    try {
      app = await opts.resolveApp(hostField === undefined || plain.address ? '' : host);
    } catch (err) {
      // A tenant that could not be opened (its svc.json, its store) is still the one the Host named.
      const tenant = (err as { tenant?: unknown } | undefined)?.tenant;
      if (typeof tenant === 'string') state.tenant = tenant;
      throw err;
    }
    if (!app) throw new SvcError('tenant-not-found', `No app is served for host ${JSON.stringify(hostField ?? '')}.`);
    state.app = app;
    state.tenant = app.name;
    // One app cannot take every request slot of the process: past its share it is told to retry.
    const inProgress = busy.get(app.name) ?? 0;
    if (inProgress >= opts.tenantConcurrency) {
      throw new SvcError('tenant-busy', `This app has ${inProgress} requests in progress, the most one app may have; retry shortly.`, { headers: { 'retry-after': '1' } });
    }
    busy.set(app.name, inProgress + 1);
    state.holds = true;

    if (r.kind === 'openapi') return sendJsonBytes(sink, await openApiJsonOf(app, originOf(host, app.name)));
    if (r.kind === 'types') {
      if (r.name === undefined) return sendJsonBytes(sink, await app.models.typesJson());
      const model = app.models.get(r.name);
      if (!model) throw new SvcError('type-not-found', `No type "${r.name}".`);
      return sendJson(sink, 200, typeMetadata(model));
    }

    // HTTP access to a model is off until its handler script exists (README "Models and handlers").
    const model = app.models.get(r.collection);
    const handler = model && app.handlerFile(r.collection);
    if (!model || !handler) throw new SvcError('collection-not-found', `No collection "${r.collection}".`);
    if (r.kind === 'unmapped') {
      // Allow is what this URL serves (RFC 9110 §10.2.1): known for the one-line svc.delegate(),
      // else every method the URL convention maps there. Not the reading of the source a preflight
      // uses: that is a reading of text, and Allow must list every method the handler serves.
      const events = (await app.runtime.events(handler, true)) ?? EVENTS;
      throw new SvcError('method-not-allowed', `${method} is not a method of this server.`, { headers: { allow: allowHeader(events.filter((e) => isMemberEvent(e) === r.member)) } });
    }
    if (preflight) {
      // The methods of this kind of target the handler serves: known for the one-line
      // svc.delegate(), else those its source shows (compile.ts declaredEvents, which may list
      // more, never fewer), else every method the URL convention maps (the request may then be 405).
      const events = (await app.runtime.events(handler)) ?? EVENTS;
      const member = isMemberEvent(r.event);
      return answerPreflight(req, sink, allowHeader(events.filter((e) => isMemberEvent(e) === member)));
    }
    const log = opts.log.child({ requestId, tenant: app.name, collection: r.collection, event: r.event });
    ending.log = log;

    const query = queryParams(q === -1 ? '' : target.slice(q + 1));
    // The member id is a request parameter (SPEC §4), decoded as the query's are; the path info stays as sent.
    const id = r.id === undefined ? undefined : memberIdParam(r.id, `${r.collection}Id`);
    // The representation depends on Accept: a cache must not serve one client's to another, nor
    // the 406 one Accept gets to another (RFC 9110 §12.5.5), so Vary is set before negotiating.
    const vary = sink.headers.get('vary');
    sink.setHeader('vary', vary === undefined ? 'Accept' : `${vary}, Accept`);
    const representation = negotiate(REPRESENTATIONS, req.headers.accept, query.get('format_as'));
    // A client that waits for 100 Continue is asked for the body only now, when nothing in the head refused it.
    const rawBody = await readBody(
      req,
      limits.maxBodyBytes,
      expect === '100-continue'
        ? () => {
            if (!res.headersSent) res.writeContinue();
          }
        : undefined,
    );
    state.bytesIn = rawBody.length;
    let body: Record<string, unknown> | undefined;
    if (r.event === 'create' || r.event === 'update') {
      body = memberBody(req, rawBody, model);
    }
    const params = new Map(query);
    if (id !== undefined) params.set(`${r.collection}Id`, id);

    const ex: Exchange = {
      id: requestId,
      log,
      tenant: app.name,
      store: app.store,
      models: app.models,
      limits: app.settings.limits,
      settings: app.settings,
      handler,
      model,
      target: { collection: r.collection, event: r.event, ...(id !== undefined ? { id } : {}), ...(r.pathInfo !== undefined ? { pathInfo: r.pathInfo } : {}) },
      method,
      path: pathname,
      origin: originOf(host, app.name),
      query,
      params,
      headers: headerRecord(req),
      rawBody,
      body,
      representation,
      res: sink,
      dev,
      usage: state.usage,
    };
    await app.runtime.serve(ex);
  }

  /** The request being answered on each connection (the latest, when requests are pipelined). */
  const answering = new WeakMap<Duplex, Answering>();

  function serve(req: IncomingMessage, res: ServerResponse): void {
    const sent = req.headers['x-request-id'];
    const requestId = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    const started = performance.now();
    const sink = new HttpResponse(req, res, limits.requestTimeoutMs, sockets.size >= BATCH_CONNECTIONS);
    // Pipelined requests run at once only while they are all safe (RFC 9112 §9.3.2): a GET waits
    // for the unsafe requests before it on its connection, any other request for all of them.
    const earlier = answering.get(req.socket);
    const safe = req.method === 'GET' || req.method === 'HEAD';
    const wait = earlier === undefined ? undefined : safe ? earlier.unsafeDone : earlier.allDone;
    const exchange: Answering = { req, res, sink, allDone: undefined!, unsafeDone: earlier?.unsafeDone };
    answering.set(req.socket, exchange);
    sink.setHeader('x-request-id', requestId);
    answers.add(sink);
    if (closing) sink.setHeader('connection', 'close');
    // node:http drops what follows a request asking to upgrade (a WebSocket, h2c) on its connection,
    // which is not upgraded: closing after the answer tells the client to send the rest again.
    if (req.headers.upgrade !== undefined) sink.setHeader('connection', 'close');
    const allowOrigin = corsOrigin(req.headers.origin);
    if (allowOrigin !== undefined) {
      sink.setHeader('access-control-allow-origin', allowOrigin);
      sink.setHeader('access-control-expose-headers', CORS_EXPOSED);
    }
    // With a list of origins, whether the response allows one depends on Origin, also when it
    // allows none: a shared cache must not serve one origin's answer to another.
    if (cors !== undefined && !cors.has('*')) sink.setHeader('vary', 'Origin');
    const ending = { res: sink, log: opts.log.child({ requestId }), dev };
    const state: RequestState = { bytesIn: 0, usage: { handlerCpuMs: 0 }, holds: false };
    // One record per request, when its response is complete or its connection gone.
    res.once('close', () => {
      if (answering.get(req.socket) === exchange) answering.delete(req.socket);
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      const status = res.writableFinished ? sink.status : 0;
      const handlerCpuMs = Math.round(state.usage.handlerCpuMs * 1000) / 1000;
      if (ending.log.enabled('info')) {
        const path = (state.path ?? '/').slice(0, 512);
        // The tenant is known before the request's logger is narrowed (a tenant-busy, an unknown collection).
        const tenant = state.tenant !== undefined && ending.log.fields.tenant === undefined ? { tenant: state.tenant } : {};
        ending.log
          .child({ ...tenant, method: req.method, path, status, durationMs, bytesIn: state.bytesIn, bytesOut: sink.written, handlerCpuMs, ...(sink.problem ? { problem: sink.problem } : {}) })
          .info(`${req.method} ${path} ${status || 'aborted'} ${durationMs} ms`);
      }
      opts.metrics.observe({ tenant: state.tenant, status, durationMs, handlerCpuMs, ...(sink.problem ? { problem: sink.problem } : {}) });
    });
    const run = () => handle(req, res, ending, requestId, state);
    const served = (wait === undefined ? run() : wait.then(run, run)).then(
      () => complete(ending),
      (err: unknown) => complete(ending, err),
    );
    exchange.allDone = earlier === undefined ? served : Promise.all([earlier.allDone, served]);
    if (!safe) exchange.unsafeDone = exchange.allDone;
    void served.finally(() => {
      answers.delete(sink);
      if (state.holds) {
        const n = busy.get(state.tenant!)! - 1;
        if (n === 0) busy.delete(state.tenant!);
        else busy.set(state.tenant!, n);
      }
      if (state.app) opts.releaseApp?.(state.app);
      if (answers.size === 0 && idle) idle();
    });
  }

  const headBytes = headBytesFor(limits.maxUrlBytes);
  const server = createServer(
    {
      maxHeaderSize: headBytes,
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.requestTimeoutMs,
      // How often Node checks the two timeouts above; its default (30 s) would let a slow request live twice as long.
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(limits.requestTimeoutMs / 4))),
      // handle() answers a missing Host itself, as a problem.
      requireHostHeader: false,
    },
    serve,
  );

  // Connections open now, for shutdown: one that has sent nothing yet (a client's or a load
  // balancer's connection opened ahead of use) is no request node:http would wait for, nor one
  // closeIdleConnections() closes (that needs a request answered on it): it held the drain for
  // its whole 10 s.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  // Requests with Expect come here too: handle() sends 100 Continue when it reads the body, or
  // answers a 417 problem (node:http would send 100 at once, or a bare 417).
  server.on('checkContinue', serve);
  server.on('checkExpectation', serve);

  // What node:http cannot make a request of: answered as a problem with the status Node would
  // give (400, 408, 413, 431), where Node answers a bare status line. As Node does, only while no
  // byte of a response is on the wire: through the response in progress, if any (it is then that
  // request's answer, logged as such), else straight on the socket. The connection then closes.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const error = clientErrorProblem(err, limits.requestTimeoutMs, headBytes);
    const current = answering.get(socket);
    if (current !== undefined && current.req.complete && error !== undefined) {
      // The request being answered arrived whole: the error is in a later one. Answer this one as
      // it is, then close (RFC 9112 §9.3.2: a client retries the requests left unanswered).
      current.sink.setHeader('connection', 'close');
      const close = () => socket.end(() => socket.destroy());
      if (current.res.writableFinished) close();
      else current.res.once('finish', close);
      return;
    }
    if (error === undefined || !socket.writable || current?.sink.committed || current?.sink.ended) {
      // A response ended in this turn goes out first, as it would have before the error.
      current?.sink.send();
      socket.destroy();
      return;
    }
    if (current !== undefined) {
      current.sink.sendProblem(error.toProblem(), { connection: 'close' });
      // Node forgets a request once its response is finished, and so would not abort it when the
      // connection closes: its body, still awaited (readBody), would hold the request for ever.
      socket.once('close', () => current.req.destroy());
      return;
    }
    const requestId = randomUUID();
    sendConnectionProblem(socket, error.toProblem(), requestId);
    opts.log.child({ requestId, status: error.status, problem: error.code }).info(`${error.status} ${error.code}: ${err.message}`);
    // Counted as every answer is (README "Metrics": under the empty tenant); its time is not known.
    opts.metrics.observe({ tenant: undefined, status: error.status, durationMs: 0, handlerCpuMs: 0, problem: error.code });
  });

  // node:http hands a CONNECT over with its bare socket, and closes it unanswered when no one
  // listens. It is served as any request (a 405), on a response made here, and the connection closes.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    // Node's listeners left with the parser: a reset now must not be an uncaught error.
    socket.on('error', () => socket.destroy());
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => socket.end(() => socket.destroy()));
    serve(req, res);
  });

  return {
    server,
    async shutdown(graceMs = 10_000, graceOver?: () => void) {
      closing = true;
      // Responses ended in this turn go out now: each is then no longer in progress, as before the
      // stop (their connections close as idle ones once they are finished).
      sendEnded();
      // The connections of the requests in flight close once they are answered: their answers say
      // so, as those of requests that begin from now on do (a client told keep-alive would send
      // its next request on a connection about to close).
      for (const answer of answers) answer.setHeader('connection', 'close');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Nothing was sent on them: closing them loses nothing, and a client sends its request again elsewhere.
      for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
      const drained = answers.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve));
      const timer = setTimeout(() => {
        server.closeAllConnections();
        // A closed connection does not stop a handler (it may keep its request busy for 30 s,
        // waiting on fetch()): the drain is at most `graceMs` only once they are stopped too.
        graceOver?.();
      }, graceMs);
      await drained;
      // Keep-alive connections that finished their last request close now: the last response,
      // ended in this turn, goes out first (node:http counts a connection idle once its response
      // is ended, and one still batched is not: its connection was left open, keep-alive).
      sendEnded();
      server.closeIdleConnections();
      await closed;
      clearTimeout(timer);
    },
  };
}
