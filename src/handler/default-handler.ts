// The default handler (README "The default handler", "Collection queries"): each event becomes store calls and one representation.

import { SvcError } from '../errors.ts';
import { parseQuery } from '../model/query.ts';
import type { Member, Model, Query } from '../model/types.ts';
import { ETAG_SUFFIXES } from '../representation/index.ts';
import type { RenderContext } from '../representation/representation.ts';
import { PAGE_WITH_TOTAL } from '../store/store.ts';
import { allowHeader, type EventName } from '../routing/events.ts';
import { collectionUrl, type Exchange } from '../exchange/exchange.ts';
import { createMember, deleteMember, etagOf, getMember, parseEtags, parseId, ResultCollector, updateMember, type Preconditions } from './members.ts';

/** What `/event/resource/*` hold after a delegate. */
export interface DelegateResult {
  /** The member served: as an object, or as the JSON text the store keeps (retrieve). */
  member?: Member | JsonText;
  collection?: Member[];
  /** The members listed were over this many bytes (maxResultBytes): none are held for the handler. */
  collectionOver?: number;
}

/** A value that is JSON text already: passed on as it is, never parsed to be stringified again. */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** Events the default handler serves, per target; the others are 405. */
const SERVED_ON_COLLECTION: readonly EventName[] = ['list', 'create'];
const SERVED_ON_MEMBER: readonly EventName[] = ['retrieve', 'update', 'delete'];
/** The events the default handler serves (the others are 405). */
export const DEFAULT_HANDLER_EVENTS: readonly EventName[] = [...SERVED_ON_COLLECTION, ...SERVED_ON_MEMBER];

/** Bodies up to this many UTF-16 units are sent whole rather than streamed. */
const SMALL_BODY = 64 * 1024;

/**
 * The most members collected for `/event/resource/collection` (the response itself streams all);
 * their bytes are bounded too, by maxResultBytes.
 */
export const MAX_COLLECTED = 10_000;

function renderContext(ex: Exchange, model: Model): RenderContext {
  return { model, collectionUrl: collectionUrl(ex) };
}

function requireId(ex: Exchange, model: Model): number {
  // The default handler defines no sub-resources below a member.
  if (ex.target.pathInfo !== undefined) {
    throw new SvcError('not-found', `The default handler serves no path below a member (${ex.target.pathInfo}).`);
  }
  const raw = ex.params.get(`${model.name}Id`) ?? ex.target.id;
  const id = parseId(raw);
  if (id === undefined) throw new SvcError('member-not-found', `No ${model.name} member has the id ${JSON.stringify(raw)}.`);
  return id;
}

function memberNotFound(model: Model, id: number): SvcError {
  return new SvcError('member-not-found', `No ${model.name} member has the id ${id}.`);
}

function sendMember(ex: Exchange, model: Model, member: Member, status: number): void {
  const ctx = renderContext(ex, model);
  sendRendered(ex, status, ex.representation.etagVersion(ctx), member, ex.representation.renderMember(ctx, member));
}

/**
 * A member's response: `body`, its representation, tagged by `updated` and `version`, what the
 * bytes depend on besides the member (Representation.etagVersion of the context it was rendered in).
 */
function sendRendered(ex: Exchange, status: number, version: string, member: { readonly updated: string }, body: string): void {
  const rep = ex.representation;
  ex.res.setStatus(status);
  ex.res.setHeader('content-type', rep.contentType);
  ex.res.setHeader('etag', etagOf(member, version, rep.etagSuffix));
  ex.res.end(body);
}

/**
 * A list URL for paging links: the client's own query with `start`/`count` replaced. Parameters a
 * handler changed or added before delegating are its business, not the client's: links leave them out.
 */
function pageUrl(ex: Exchange, start: number, count: number | undefined): string {
  const sp = new URLSearchParams();
  for (const [k, v] of ex.query) if (k !== 'start' && k !== 'count') sp.append(k, v);
  sp.set('start', String(start));
  if (count !== undefined) sp.set('count', String(count));
  return `${collectionUrl(ex)}?${sp}`;
}

/**
 * Pages of at most this many members are read before their count: a page that comes back short
 * of its `count` gives the total itself (start + its length), with no count query (most filtered
 * pages are short), or with their total by a store that reads both together (`Store.pageJson`).
 * Larger pages stream, and are counted first.
 */
const READ_FIRST_PAGE = PAGE_WITH_TOTAL;

/** The members of a page read whole (READ_FIRST_PAGE), and the total a short page gives. */
async function readPage<T>(source: AsyncIterable<T>, start: number, count: number): Promise<{ items: T[]; total?: number }> {
  const items: T[] = [];
  for await (const item of source) items.push(item);
  // An empty page past the first says only that the total is at most `start`.
  const short = items.length < count && (items.length > 0 || start === 0);
  return short ? { items, total: start + items.length } : { items };
}

async function list(ex: Exchange, model: Model, collect: boolean): Promise<DelegateResult> {
  if (collectionPreconditions(ex, 'listed')) return {};
  const rep = ex.representation;
  // `<collection>Id` is a member URL's parameter: on a list it is a parameter like any other (a
  // filter when the model has such a field).
  const query: Query = parseQuery(model, ex.params, rep.defaultOrder);
  const store = ex.store;
  const read = { timeMs: ex.limits.storeLimitMs };
  // Members as the store keeps their JSON, when the representation can use it: no objects built.
  const renderTexts = collect || (rep.textsKeptOnly && store.pageJson === undefined) ? undefined : rep.renderJsonTexts?.bind(rep);
  // A first page newest first starts with the newest match (or there is none); a page of
  // count=0 holds no member to tell.
  const newestFirst = rep.needsNewest && query.start === 0 && query.count !== 0 && query.order[0]?.field === 'updated' && query.order[0].desc;
  type Render = NonNullable<typeof renderTexts>;
  // A page read whole is an array: rendered in one piece, with no promise per member.
  let source: { texts: AsyncIterable<string> | readonly string[]; render: Render } | { members: AsyncIterable<Member> | readonly Member[] };
  let total: number | undefined;
  /** `updated` of the newest match, for a representation that needs it; null: no match. */
  let newest: string | null | undefined;
  if (query.count !== undefined && query.count <= READ_FIRST_PAGE) {
    // A page and its total, read together (one snapshot) by a store that can: as texts for a
    // representation that is that text, else as members (Atom, a handler's result).
    if (renderTexts) {
      const withTotal = await store.pageJson?.(model, query, read);
      const page = withTotal ?? (await readPage(store.listJson(model, query, read), query.start, query.count));
      const texts = 'texts' in page ? page.texts : page.items;
      source = { texts, render: renderTexts };
      total = page.total;
      if (newestFirst) newest = texts[0] === undefined ? null : (JSON.parse(texts[0]) as Member).updated;
    } else {
      const withTotal = await store.page?.(model, query, read);
      const page = withTotal ?? (await readPage(store.list(model, query, read), query.start, query.count));
      const members = 'members' in page ? page.members : page.items;
      source = { members };
      total = page.total;
      if (newestFirst) newest = members[0]?.updated ?? null;
    }
  } else {
    source = renderTexts ? { texts: store.listJson(model, query, read), render: renderTexts } : { members: store.list(model, query, read) };
  }
  total ??= await store.count(model, query.filters, read);
  if (rep.needsNewest && newest === undefined) {
    newest = null;
    for await (const m of store.list(model, { filters: query.filters, order: [{ field: 'updated', desc: true }], start: 0, count: 1 }, read)) newest = m.updated;
  }
  const paged = ex.params.has('start') || ex.params.has('count');
  const links: { first?: string; next?: string; prev?: string } = {};
  if (paged) {
    const { start, count } = query;
    links.first = pageUrl(ex, 0, count);
    // A page of count=0 has no neighbours: its next and prev would be itself.
    if (count !== undefined && count > 0 && start + count < total) links.next = pageUrl(ex, start + count, count);
    // The members right before this page, and none of it: with no count, or a count past the
    // start, the previous page is the first `start` members (start=0&count=20 from start=3 would
    // repeat 17 of this page's; start=0 with no count, all of them).
    if (start > 0 && count !== 0) links.prev = pageUrl(ex, count === undefined ? 0 : Math.max(0, start - count), count === undefined ? start : Math.min(count, start));
    ex.res.setHeader('link', Object.entries(links).map(([rel, url]) => `<${url}>; rel="${rel}"`).join(', '));
  }
  ex.res.setStatus(200);
  ex.res.setHeader('content-type', rep.contentType);
  ex.res.setHeader('x-total-count', String(total));
  const ctx: RenderContext = { ...renderContext(ex, model), total, ...(paged ? { links } : {}), ...(newest ? { newest } : {}) };

  // Past its bound the collector lets go of what it held; the members still stream to the client.
  const collected = collect ? new ResultCollector(ex.limits.maxResultBytes) : undefined;
  let chunks: AsyncIterable<string> | readonly string[];
  if ('texts' in source) {
    chunks = source.render(ctx, source.texts);
  } else if (collected && Array.isArray(source.members)) {
    for (const m of source.members.slice(0, MAX_COLLECTED)) collected.add(m);
    chunks = rep.renderCollection(ctx, source.members);
  } else if (collected) {
    let count = 0;
    const members = source.members as AsyncIterable<Member>;
    chunks = rep.renderCollection(ctx, (async function* () {
      for await (const m of members) {
        if (count++ < MAX_COLLECTED) collected.add(m);
        yield m;
      }
    })());
  } else {
    chunks = rep.renderCollection(ctx, source.members);
  }
  // A list that fits in SMALL_BODY goes out in one write with Content-Length; a larger one
  // streams (chunked), so memory stays flat however many members it has.
  let pending = '';
  for await (const chunk of chunks) {
    if (ex.res.ended) break; // the client went away
    if (!ex.res.committed && pending.length + chunk.length <= SMALL_BODY) {
      pending += chunk;
      continue;
    }
    if (pending) await ex.res.write(pending);
    pending = '';
    await ex.res.write(chunk);
    // HEAD is GET without a body: its head went out (streamed, as GET's), and nothing more of the
    // list is read, unless a handler that delegated reads the members.
    if (ex.method === 'HEAD' && !collected) break;
  }
  ex.res.end(ex.res.committed ? undefined : pending);
  if (!collected) return {};
  return collected.members ? { collection: collected.members } : { collectionOver: collected.maxBytes };
}

async function retrieve(ex: Exchange, model: Model, collect: boolean): Promise<DelegateResult> {
  const id = requireId(ex, model);
  // The member as the store keeps its JSON, when the representation is that text: no object is
  // built (a handler's /event/resource/member gets the text too).
  const rep = ex.representation;
  const ctx = renderContext(ex, model);
  if (rep.renderMemberJson && ex.store.getJson) {
    const found = await ex.store.getJson(model, id);
    if (!found) throw memberNotFound(model, id);
    // Once for the tag the client sent and the one sent back (Atom's hashes the collection URL).
    const version = rep.etagVersion(ctx);
    ifMatchHolds(ex, id, found);
    if (!notModified(ex, version, found)) sendRendered(ex, 200, version, found, rep.renderMemberJson(ctx, found.text));
    return collect ? { member: new JsonText(found.text) } : {};
  }
  const member = await getMember(ex.store, model, id);
  if (!member) throw memberNotFound(model, id);
  const version = rep.etagVersion(ctx);
  ifMatchHolds(ex, id, member);
  if (!notModified(ex, version, member)) sendRendered(ex, 200, version, member, rep.renderMember(ctx, member));
  return { member };
}

/**
 * Throws 412 when a precondition on the collection's own URL fails (RFC 9110 §13.1.1-2): a list or
 * feed has no entity tag, so an If-Match of tags never matches (`*` does: the collection exists),
 * and If-None-Match `*` never holds on a POST (the collection has a current representation). On a
 * list (GET, HEAD) a failed If-None-Match `*` is 304 instead (§13.1.2): sent here, and true.
 */
function collectionPreconditions(ex: Exchange, nothing: string): boolean {
  const { ifMatch, ifNoneMatch } = preconditions(ex);
  // An If-Match of tags (`*` reads as none).
  if (ifMatch !== undefined) {
    throw new SvcError('precondition-failed', `A collection has no ETag, so the If-Match you sent names none of its states (only * does); nothing was ${nothing}.`);
  }
  if (ifNoneMatch !== '*') return false;
  if (ex.method === 'POST') {
    throw new SvcError('precondition-failed', `The collection exists, and If-None-Match: * asks that it does not; nothing was ${nothing}.`);
  }
  ex.res.setStatus(304);
  ex.res.end();
  return true;
}

/**
 * Throws 412 when the request's If-Match names no state the member is at (RFC 9110 §13.1.1: on
 * any method, a GET's too, evaluated before If-None-Match, §13.2.2). As on a write, a tag of
 * either representation names the member's state (preconditions); `*` any existing member.
 */
function ifMatchHolds(ex: Exchange, id: number, member: { readonly updated: string }): void {
  const ifMatch = preconditions(ex).ifMatch;
  if (ifMatch !== undefined && !ifMatch.includes(member.updated)) {
    throw new SvcError('precondition-failed', `Member ${id} was changed since the ETag your If-Match names: GET it without If-Match for its current state.`);
  }
}

/**
 * Answers 304 when the client's If-None-Match names the member as it is, in the representation
 * asked for, at `version` (Representation.etagVersion; RFC 9110 §13.1.2): the other
 * representation's tag, a tag of before the model changed, or an Atom tag of other links, is of
 * bytes the client has not got, so it is answered 200 with these.
 */
function notModified(ex: Exchange, version: string, member: { readonly updated: string }): boolean {
  const inm = ex.headers['if-none-match'];
  if (inm === undefined) return false;
  const rep = ex.representation;
  const tags = parseEtags(inm, true, [rep.etagSuffix], version);
  if (tags !== undefined && !tags.includes(member.updated)) return false;
  ex.res.setStatus(304);
  ex.res.setHeader('etag', etagOf(member, version, rep.etagSuffix));
  ex.res.end();
  return true;
}

function bodyOf(ex: Exchange): Record<string, unknown> {
  if (ex.body === undefined) throw new SvcError('invalid-json', 'The body is empty: send a member.');
  return ex.body;
}

async function create(ex: Exchange, model: Model): Promise<DelegateResult> {
  collectionPreconditions(ex, 'created');
  const member = await createMember(ex.store, model, bodyOf(ex));
  ex.res.setHeader('location', `${collectionUrl(ex)}/${member.id}`);
  sendMember(ex, model, member, 201);
  return { member };
}

/**
 * The request's If-Match and If-None-Match (RFC 9110 §13.1.1-2: strong and weak comparison; If-Match
 * `*`: any member, which the write needs anyway). A tag of any representation names the member's
 * state (Preconditions), whatever the representation of this request.
 */
function preconditions(ex: Exchange): Preconditions {
  const ifMatch = ex.headers['if-match'];
  const ifNoneMatch = ex.headers['if-none-match'];
  return {
    ifMatch: ifMatch === undefined ? undefined : parseEtags(ifMatch, false, ETAG_SUFFIXES),
    ifNoneMatch: ifNoneMatch === undefined ? undefined : (parseEtags(ifNoneMatch, true, ETAG_SUFFIXES) ?? '*'),
  };
}

async function update(ex: Exchange, model: Model): Promise<DelegateResult> {
  const id = requireId(ex, model);
  const member = await updateMember(ex.store, model, id, bodyOf(ex), preconditions(ex));
  sendMember(ex, model, member, 200);
  return { member };
}

async function remove(ex: Exchange, model: Model): Promise<DelegateResult> {
  const id = requireId(ex, model);
  if (!(await deleteMember(ex.store, model, id, preconditions(ex)))) throw memberNotFound(model, id);
  ex.res.setStatus(204);
  ex.res.end();
  return {};
}

/**
 * Runs the default handler for the exchange's event and completes the response. Throws
 * SvcError (nothing committed) for every error. With `collect`, a list also returns its members.
 */
export async function runDefault(ex: Exchange, opts: { collect?: boolean } = {}): Promise<DelegateResult> {
  const model = ex.model;
  switch (ex.target.event) {
    case 'list':
      return list(ex, model, opts.collect ?? false);
    case 'create':
      return create(ex, model);
    case 'retrieve':
      return retrieve(ex, model, opts.collect ?? false);
    case 'update':
      return update(ex, model);
    case 'delete':
      return remove(ex, model);
    case 'putCollection':
    case 'deleteCollection':
      throw new SvcError('method-not-allowed', `The default handler does not serve ${ex.method} on a collection.`, {
        headers: { allow: allowHeader(SERVED_ON_COLLECTION) },
      });
    case 'postMember':
      throw new SvcError('method-not-allowed', `The default handler does not serve ${ex.method} on a member.`, {
        headers: { allow: allowHeader(SERVED_ON_MEMBER) },
      });
  }
}
