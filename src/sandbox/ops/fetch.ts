// `fetch()`: outbound HTTP on undici, to the origins the app's svc.json lists, and nowhere else.
//
// A handler could otherwise reach what only the server can: the host's own ports, the private
// network, a cloud metadata service. So: the URL's origin must be listed; a host name is resolved
// here, and if any of its addresses is loopback, private, link-local or otherwise not public the
// request is refused; an origin listed *as* a non-public address is reached only when the
// operator's --fetch-private includes its network (src/exchange/fetch-private.ts: by default
// none with --tenants, where whoever writes svc.json is not whoever runs the server); the
// connection goes to the address that was checked (no second lookup a DNS answer could change: rebinding);
// redirects are not followed (a 3xx comes back to the handler, whose next fetch is checked
// again). Each request has bounded fetches, time and response bytes; no proxy, cookie or other
// host credential is added.

import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { Socket } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import { fetchPrivateAllows } from '../../exchange/fetch-private.ts';
import { GuestError, HEADER_NAME, HEADER_VALUE, isRecord, malformed, SERVER_HEADERS, type Op } from '../guest.ts';

/** Addresses that are not the public internet. */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3],
] as const) NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
// IPv4-mapped addresses (::ffff:0:0/96) are matched against the IPv4 blocks by BlockList itself.
// The others that carry an IPv4 address, which a translator or tunnel would reach, are not public
// whatever they carry: IPv4-compatible (::/96, with :: and ::1), IPv4-translated (::ffff:0:0:0/96,
// SIIT, RFC 2765: not the mapped ::ffff:0:0/96, so BlockList does not see the IPv4 address in it),
// NAT64 (RFC 6052, RFC 8215), Teredo (2001::/32) and 6to4 (2002::/16). Site-local fec0::/10 (RFC
// 3879 deprecated it, but old networks still use it, fec0:0:0:ffff::1 for DNS) is private too.
// So are the blocks IANA's special-purpose registry marks not globally reachable: benchmarking
// (2001:2::/48, as 198.18.0.0/15), the deprecated ORCHID (2001:10::/28), documentation (2001:db8::/32
// and 3fff::/20, RFC 9637) and SRv6 segment identifiers (5f00::/16, RFC 9602: a network's own routers).
for (const [net, prefix] of [
  ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 32], ['2001:2::', 48], ['2001:10::', 28],
  ['2001:db8::', 32], ['2002::', 16], ['3fff::', 20], ['5f00::', 16],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

/**
 * Bytes the server reads from the connection for one response, beyond twice its body's bound:
 * room for a status line and headers (16 KiB at most each, undici's parser) and for the framing of
 * a chunked body. Not the body alone: interim (1xx) responses one after another, or a chunk
 * extension that never ends, are no body, and would otherwise be read and parsed on the event
 * loop for the whole fetchTimeoutMs (hundreds of MB) without the handler's CPU limit seeing it.
 */
export const FETCH_WIRE_SLACK = 64 * 1024;

/**
 * Handlers' host-name lookups in progress at once, in the process. getaddrinfo runs on libuv's
 * threadpool (4 threads), which the server's own file reads and the MongoDB driver's lookups use
 * too, and a lookup cannot be cancelled: a name whose DNS server never answers holds its thread
 * for the resolver's timeout (seconds to tens of seconds), whatever the fetch's own time. So
 * handlers hold at most MAX_LOOKUPS threads, each app at most one: a fetch waits for a place
 * within its fetchTimeoutMs, and the lookup it started goes on holding its place after the fetch
 * gave up, until the resolver answers.
 */
export const MAX_LOOKUPS = 2;

type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;
let resolveHost: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/** Replaces the resolver of handlers' host names, forgetting the names kept (tests: a DNS server that never answers); returns the one before. */
export function setHostLookup(fn: Lookup): Lookup {
  const before = resolveHost;
  resolveHost = fn;
  kept.clear();
  return before;
}

/** Apps with a lookup in progress, and the fetches waiting for a place, first come first served where their app has none. */
const looking = new Set<string>();
const waitingLookups: { app: string; start: () => void }[] = [];

function nextLookups(): void {
  for (let i = 0; i < waitingLookups.length && looking.size < MAX_LOOKUPS; ) {
    const w = waitingLookups[i]!;
    if (looking.has(w.app)) i++;
    else {
      waitingLookups.splice(i, 1);
      w.start();
    }
  }
}

/**
 * How long a name's addresses are kept after a lookup, in milliseconds: an app fetching the same
 * origins request after request looks each up once per this time, not once per fetch, which one
 * lookup at a time per app could not keep up with (a lookup takes milliseconds to tens of them).
 * Rebinding gains nothing from it: the connection goes to an address that was checked either way.
 */
export const LOOKUP_KEEP_MS = 5_000;
/** At most this many names kept (the oldest goes first). */
const KEPT_LOOKUPS = 1_000;
/**
 * By app and name: one app's lookup does not answer another's, whose fetch would then tell by its
 * speed which origins the other fetched lately.
 */
const kept = new Map<string, { until: number; found: { address: string; family: number }[] }>();

/**
 * `host`'s addresses: kept from a lookup less than LOOKUP_KEEP_MS ago, or looked up in a place of
 * MAX_LOOKUPS (one per `app`); rejects with `timedOut` once `signal` aborts first.
 */
export function lookupHost(app: string, host: string, signal: AbortSignal, timedOut: () => Error): Promise<{ address: string; family: number }[]> {
  const key = `${app}\n${host}`;
  const hit = kept.get(key);
  if (hit && hit.until > performance.now()) return Promise.resolve(hit.found);
  return new Promise((resolve, reject) => {
    const waiting = { app, start: () => {} };
    const onAbort = () => {
      const at = waitingLookups.indexOf(waiting);
      if (at !== -1) waitingLookups.splice(at, 1);
      reject(timedOut());
    };
    waiting.start = () => {
      looking.add(app);
      resolveHost(host)
        .then((found) => {
          kept.delete(key);
          if (kept.size >= KEPT_LOOKUPS) kept.delete(kept.keys().next().value!);
          kept.set(key, { until: performance.now() + LOOKUP_KEEP_MS, found });
          return found;
        })
        .finally(() => {
          looking.delete(app);
          nextLookups();
        })
        .then(resolve, reject)
        .finally(() => signal.removeEventListener('abort', onAbort));
    };
    if (signal.aborted) return reject(timedOut());
    signal.addEventListener('abort', onAbort, { once: true });
    waitingLookups.push(waiting);
    nextLookups();
  });
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Headers the host sets for the connection; a handler's would be ignored or misused. */
const OWN_HEADERS = new Set([...SERVER_HEADERS, 'host', 'expect', 'proxy-authorization']);

export const fetch: Op = async (call, payload) => {
  const { limits, settings } = call.ex;
  if (!isRecord(payload) || typeof payload.url !== 'string') throw malformed('fetch');
  const count = (call.fetches ?? 0) + 1;
  call.fetches = count;
  if (count > limits.fetchCount) throw new GuestError(`fetch(): this request made its ${limits.fetchCount} fetches; make fewer per request`);

  let url: URL;
  try {
    url = new URL(payload.url);
  } catch {
    throw new GuestError(`fetch(): ${JSON.stringify(payload.url.slice(0, 200))} is not an absolute URL`, 'TypeError');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new GuestError(`fetch(): only http: and https: URLs can be fetched, not ${url.protocol}`, 'TypeError');
  if (!settings.fetchAllow.includes(url.origin)) {
    throw new GuestError(`fetch(): ${url.origin} is not an origin this app may fetch; list it under fetch.allow in the app's svc.json`);
  }
  const method = payload.method === undefined ? 'GET' : String(payload.method);
  if (!METHODS.has(method)) throw new GuestError(`fetch(): method ${method.slice(0, 20)} is not supported`, 'TypeError');
  const headers: Record<string, string> = {};
  if (payload.headers !== undefined) {
    if (!Array.isArray(payload.headers) || payload.headers.length > 100) throw malformed('headers');
    for (const h of payload.headers) {
      if (!Array.isArray(h) || typeof h[0] !== 'string' || typeof h[1] !== 'string') throw malformed('header');
      if (!HEADER_NAME.test(h[0]) || !HEADER_VALUE.test(h[1])) throw new GuestError(`fetch(): the header ${h[0].slice(0, 50)} is not a valid header`, 'TypeError');
      if (OWN_HEADERS.has(h[0])) throw new GuestError(`fetch(): the server sets ${h[0]}; a handler cannot`, 'TypeError');
      headers[h[0]] = h[1];
    }
  }
  const body = typeof payload.body === 'string' ? payload.body : undefined;

  const signal = AbortSignal.timeout(limits.fetchTimeoutMs);
  const timedOut = () => new GuestError(`fetch(): ${url.origin} did not answer within ${limits.fetchTimeoutMs} ms`);
  // The address is checked here and the connection made to it: no later lookup can differ.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let address: string;
  if (isIP(host) !== 0) {
    // The URL parser has already spelt the address one way (2130706433, 0x7f.1 and 127.1 are
    // 127.0.0.1; [::ffff:127.0.0.1] is [::ffff:7f00:1]), as svc.json's origins were spelt.
    address = host;
    if (!isPublicAddress(address) && !fetchPrivateAllows(settings.fetchPrivate, address)) {
      throw new GuestError(
        `fetch(): ${address} is not a public address, and this server does not let handlers reach it; listing it in svc.json is not enough: the server's operator decides which private networks handlers may reach (svc serve --fetch-private, SVC_FETCH_PRIVATE)`,
      );
    }
  } else {
    let found: { address: string; family: number }[];
    try {
      found = await lookupHost(call.ex.tenant, host, signal, timedOut);
    } catch (err) {
      if (err instanceof GuestError) throw err;
      throw new GuestError(`fetch(): ${host} cannot be resolved`);
    }
    const bad = found.find((a) => !isPublicAddress(a.address));
    if (bad || found.length === 0) {
      throw new GuestError(`fetch(): ${host} resolves to an address that is not public (${bad?.address ?? 'none'}); only an origin listed as that address may reach it, where the server's --fetch-private allows`);
    }
    address = found[0]!.address;
  }
  const family = isIP(address);
  const connector = buildConnector({
    lookup: (_name: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) =>
      options?.all ? cb(null, [{ address, family }]) : cb(null, address, family),
  } as never);
  // Every byte read counts, whatever the response is made of: the connection is closed past the bound.
  const wireMax = 2 * limits.fetchMaxBytes + FETCH_WIRE_SLACK;
  let overWire = false;
  const dispatcher = new Agent({
    connect: ((options: never, cb: (err: Error | null, socket: Socket | null) => void) =>
      connector(options, (err, socket) => {
        if (socket) {
          // A 'readable' listener (undici's own reads the socket) leaves the stream's flow as it is.
          socket.on('readable', () => {
            if (socket.bytesRead > wireMax && !overWire) {
              overWire = true;
              socket.destroy();
            }
          });
        }
        cb(err, socket as Socket | null);
      })) as never,
    connections: 1,
  });
  const overWireError = () => new GuestError(`fetch(): ${url.origin} sent over ${wireMax} bytes for one response (its status, headers and framing count, with its body: fetchMaxBytes is ${limits.fetchMaxBytes})`);
  try {
    const res = await request(url, { method: method as never, headers, body, dispatcher, signal, maxRedirections: 0 } as never);
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (overWire) throw overWireError();
      bytes += chunk.length;
      if (bytes > limits.fetchMaxBytes) {
        res.body.destroy();
        throw new GuestError(`fetch(): the response of ${url.origin} is over ${limits.fetchMaxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    const out: [string, string][] = [];
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined) out.push([name, Array.isArray(value) ? value.join(', ') : value]);
    }
    return { status: res.statusCode, url: url.href, headers: out, body: Buffer.concat(chunks).toString('utf8') };
  } catch (err) {
    if (err instanceof GuestError) throw err;
    if (overWire) throw overWireError();
    if (signal.aborted) throw timedOut();
    throw new GuestError(`fetch(): the request to ${url.origin} failed (${(err as { code?: string }).code ?? 'network error'})`);
  } finally {
    void dispatcher.close().catch(() => {});
  }
};
