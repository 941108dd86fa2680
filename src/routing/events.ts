// Method → event mapping of README "REST reference", as data.

export const EVENTS = ['list', 'putCollection', 'create', 'deleteCollection', 'retrieve', 'update', 'postMember', 'delete'] as const;
export type EventName = (typeof EVENTS)[number];

/** Methods the URL convention maps; anything else is 405. `HEAD` is served as `GET`. */
export const METHODS = ['GET', 'PUT', 'POST', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];

export const COLLECTION_EVENTS: Readonly<Record<Method, EventName>> = {
  GET: 'list', PUT: 'putCollection', POST: 'create', DELETE: 'deleteCollection',
};
export const MEMBER_EVENTS: Readonly<Record<Method, EventName>> = {
  GET: 'retrieve', PUT: 'update', POST: 'postMember', DELETE: 'delete',
};

/** The event → method of its target, for `Allow` headers. */
export const EVENT_METHOD: Readonly<Record<EventName, Method>> = Object.fromEntries(
  [...Object.entries(COLLECTION_EVENTS), ...Object.entries(MEMBER_EVENTS)].map(([m, e]) => [e, m as Method]),
) as Record<EventName, Method>;

export const isMemberEvent = (e: EventName): boolean => Object.values(MEMBER_EVENTS).includes(e);

/** Scripted handler function name of an event: `list` → `onList`. */
export const handlerName = (e: EventName): string => `on${e[0]!.toUpperCase()}${e.slice(1)}`;

/** The `Allow` header for a target, given the events that are served there. */
export function allowHeader(served: readonly EventName[]): string {
  const methods = served.map((e) => EVENT_METHOD[e]);
  if (methods.includes('GET')) methods.push('HEAD' as Method);
  return [...new Set(methods)].join(', ');
}
