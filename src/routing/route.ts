// The URL convention of README "REST reference" as a pure function: path and method in, a target or an error out.

import { SvcError } from '../errors.ts';
import { COLLECTION_NAME } from '../model/load.ts';
import { COLLECTION_EVENTS, MEMBER_EVENTS, METHODS, type EventName, type Method } from './events.ts';

export type Route =
  | { kind: 'ops'; name: OpsEndpoint }
  | { kind: 'types'; name?: string }
  | { kind: 'openapi' }
  | { kind: 'resource'; collection: string; id?: string; pathInfo?: string; event: EventName }
  /** A method the URL convention does not map, on a collection's or member's URL: 405 with the methods that URL serves, once its handler is known. */
  | { kind: 'unmapped'; collection: string; member: boolean };

/** The methods the URL convention serves (README "REST reference"): the Allow of a 405 for any other, where no URL of a collection is asked for. */
export const ALL_METHODS = 'GET, HEAD, PUT, POST, DELETE';

/** The operator's endpoints (README "Operations"): liveness, readiness, Prometheus metrics. */
export const OPS_ENDPOINTS = ['healthz', 'readyz', 'metrics'] as const;
export type OpsEndpoint = (typeof OPS_ENDPOINTS)[number];

function notFound(path: string): SvcError {
  return new SvcError('not-found', `Nothing is served at ${path.slice(0, 200)}.`);
}

/** Routes `method` on `path` (the URL path, still percent-encoded). */
export function route(method: string, path: string): Route {
  const ops = OPS_ENDPOINTS.find((name) => path === `/${name}`);
  if (ops !== undefined) {
    if (method !== 'GET' && method !== 'HEAD') throw new SvcError('method-not-allowed', `${method} is not allowed on ${path}.`, { headers: { allow: 'GET, HEAD' } });
    return { kind: 'ops', name: ops };
  }
  if (!path.startsWith('/resources/')) throw notFound(path);
  // A trailing slash (an empty last segment) is 404 and never redirected (README "REST reference").
  const segments = path.slice('/resources/'.length).split('/');
  if (segments.some((s) => s === '')) throw notFound(path);
  const [collection, id, ...rest] = segments as [string, ...string[]];
  const verb: Method | undefined = method === 'HEAD' ? 'GET' : (METHODS as readonly string[]).includes(method) ? (method as Method) : undefined;

  // A dot never names a collection, so this name cannot hide one.
  if (collection === 'openapi.json' && id === undefined) {
    if (verb !== 'GET') throw new SvcError('method-not-allowed', `${method} is not allowed on the OpenAPI document.`, { headers: { allow: 'GET, HEAD' } });
    return { kind: 'openapi' };
  }
  if (collection === 'types') {
    if (rest.length > 0) throw notFound(path);
    if (verb !== 'GET') throw new SvcError('method-not-allowed', `${method} is not allowed on type metadata.`, { headers: { allow: 'GET, HEAD' } });
    return id === undefined ? { kind: 'types' } : { kind: 'types', name: id };
  }
  // Names are plain; dots, percent-encoded slashes and the like never name a collection.
  if (!COLLECTION_NAME.test(collection)) throw notFound(path);
  if (verb === undefined) return { kind: 'unmapped', collection, member: id !== undefined };
  if (id === undefined) return { kind: 'resource', collection, event: COLLECTION_EVENTS[verb] };
  const pathInfo = rest.length ? `/${rest.join('/')}` : undefined;
  return { kind: 'resource', collection, id, event: MEMBER_EVENTS[verb], ...(pathInfo ? { pathInfo } : {}) };
}
