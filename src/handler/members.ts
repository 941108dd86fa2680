// Member operations shared by the default handler and the sandbox's model API: validate, then store.

import { SvcError } from '../errors.ts';
import { parseQuery } from '../model/query.ts';
import type { Member, Model, Order, Query } from '../model/types.ts';
import { validateCreate, validateUpdate } from '../model/validate.ts';
import { DEFAULT_LIMITS } from '../exchange/limits.ts';
import { nextUpdated, type ReadOptions, type Store } from '../store/store.ts';

/** The most members one model-API `list()` call returns; page with start/count beyond it. */
export const MODEL_API_MAX_LIST = 10_000;

/** The most bytes one ResultCollector held in this process since the last call: for tests. */
let peakHeld = 0;
export function takePeakResultBytes(): number {
  const peak = peakHeld;
  peakHeld = 0;
  return peak;
}

/**
 * Members gathered for a handler (a model-API `list()`, `/event/resource/collection`), bounded in
 * bytes as well as in count: a count alone lets 1 MB members make the host hold gigabytes.
 * Each member is measured as it arrives, so a caller can stop reading the store at once.
 */
export class ResultCollector {
  #members: Member[] | undefined = [];
  #bytes = 0;
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Adds `member`; false once the members are over the bound, and then none are held any more. */
  add(member: Member): boolean {
    if (this.#members === undefined) return false;
    // Their JSON is what reaches the isolate (sandbox/bridge.ts), and about what the host holds.
    this.#bytes += Buffer.byteLength(JSON.stringify(member)) + 1;
    if (this.#bytes > this.maxBytes) {
      this.#members = undefined;
      return false;
    }
    this.#members.push(member);
    if (this.#bytes > peakHeld) peakHeld = this.#bytes;
    return true;
  }

  /** The members gathered, or undefined when they were over the bound. */
  get members(): Member[] | undefined {
    return this.#members;
  }
}

/** A model-API `list()` found more than `maxBytes` of members (README "Limits"). */
export class ResultTooLarge extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`the members found are over the ${maxBytes} bytes one call may return (maxResultBytes)`);
    this.maxBytes = maxBytes;
  }
}

/** A member's `updated` stamp as its entity tags write it: milliseconds since 1970, in base 36. */
function stampOf(updated: string): string {
  return Date.parse(updated).toString(36);
}

/**
 * Strong entity tag of a member in one representation: its `updated` stamp, a dot, the
 * representation's version of the model (`Representation.etagVersion`, 8 hex digits: what its
 * bytes depend on besides the member, such as a field removed, an Atom template changed, the URL
 * Atom's links are built from), then the representation's suffix (`Representation.etagSuffix`:
 * '' for JSON, `-atom` for Atom), so that two different sets of bytes never share a strong
 * validator (RFC 9110 §8.8.3). README "The default handler".
 */
export function etagOf(member: { readonly updated: string }, version: string, suffix: string): string {
  return `"${stampOf(member.updated)}.${version}${suffix}"`;
}

/** One of our entity tags, weak or not: `W/`, then in its quotes the stamp, the version (tags of before versions had none), the representation's suffix. */
const ENTITY_TAG = /^(W\/)?"([0-9a-z]{1,12})(?:\.([0-9a-f]{8}))?([^"]*)"$/;

/** The spaces and tabs around an element of a list (RFC 9110 §5.6.1); String.trim would take a no-break space too. */
const OWS = /^[ \t]+|[ \t]+$/g;

/**
 * The `updated` stamps an If-Match / If-None-Match header names in the representations whose tag
 * suffixes are `suffixes`, at `version` (any version, and tags of before versions were in them,
 * when undefined: a write's condition is on the member, not on its bytes); undefined for `*` (any
 * current member). Tags that are not ours, or of another representation or version, stand for no
 * stamp, so they never match. Nor does any tag that is not, character for character, one the
 * server sends (RFC 9110 §8.8.3: opaque tags): the stamp is read as a number, so it must be
 * written back the same, or `"0<stamp>…"` would name the member as well as its tag does.
 */
export function parseEtags(header: string, weak: boolean, suffixes: readonly string[], version?: string): string[] | undefined {
  if (header.replace(OWS, '') === '*') return undefined;
  const stamps: string[] = [];
  for (const element of header.split(',')) {
    // If-Match compares strongly, If-None-Match weakly (RFC 9110 §13.1.1, §13.1.2); either way
    // the opaque tag, suffix included, must be the same.
    const m = ENTITY_TAG.exec(element.replace(OWS, ''));
    if (!m || (m[1] !== undefined && !weak) || !suffixes.includes(m[4]!) || (version !== undefined && m[3] !== version)) continue;
    const d = new Date(parseInt(m[2]!, 36));
    if (Number.isNaN(d.getTime()) || d.getUTCFullYear() > 9999) continue;
    const updated = d.toISOString();
    if (stampOf(updated) === m[2]) stamps.push(updated);
  }
  return stamps;
}

/** Parses a member id given as a number or a numeric string; undefined when it is not one. */
export function parseId(id: unknown): number | undefined {
  const n = typeof id === 'number' ? id : typeof id === 'string' && /^[1-9][0-9]{0,15}$/.test(id) ? Number(id) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

export function toQuery(model: Model, params: Record<string, unknown>, defaultOrder: readonly Order[] = []): Query {
  const entries: [string, string][] = [];
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v === undefined || v === null) continue;
    entries.push([k, typeof v === 'string' ? v : String(v)]);
  }
  return parseQuery(model, entries, defaultOrder);
}

/**
 * The members a query selects, at most MODEL_API_MAX_LIST of them and `maxBytes` of their JSON:
 * over that it stops reading the store (which ends the store's cursor) and throws ResultTooLarge.
 */
export async function listMembers(store: Store, model: Model, params: Record<string, unknown> = {}, maxBytes = DEFAULT_LIMITS.maxResultBytes, read: ReadOptions = {}): Promise<Member[]> {
  const q = toQuery(model, params);
  const query: Query = { ...q, count: Math.min(q.count ?? MODEL_API_MAX_LIST, MODEL_API_MAX_LIST) };
  const found = new ResultCollector(maxBytes);
  for await (const m of store.list(model, query, read)) {
    if (!found.add(m)) throw new ResultTooLarge(maxBytes);
  }
  return found.members!;
}

export async function countMembers(store: Store, model: Model, params: Record<string, unknown> = {}, read: ReadOptions = {}): Promise<number> {
  const query = toQuery(model, params);
  return store.count(model, query.filters, read);
}

export async function getMember(store: Store, model: Model, id: unknown): Promise<Member | null> {
  const n = parseId(id);
  if (n === undefined) return null;
  return store.get(model, n);
}

export async function createMember(store: Store, model: Model, values: Record<string, unknown>): Promise<Member> {
  const data = validateCreate(model, values, false);
  return store.insert(model, data, nextUpdated());
}

/**
 * What a conditional update or delete asks of the member as it is (RFC 9110 §13.1), as `updated`
 * stamps (parseEtags): If-Match's, one of which it must be at, and If-None-Match's, none of which
 * it may be at (`*`: there must be no member, so an existing one fails). A write changes the
 * member, not one of its representations: the tag of either (JSON, Atom) names the state it was
 * read at, so a client that read Atom may update with JSON under the Atom tag (README "The default handler").
 */
export interface Preconditions {
  readonly ifMatch?: readonly string[] | undefined;
  readonly ifNoneMatch?: readonly string[] | '*' | undefined;
}

/** The 412 of member `n` changed since the If-Match the client sent: nothing was `done` (written, deleted). */
function changedSince(n: number, done: string): SvcError {
  return new SvcError('precondition-failed', `Member ${n} was changed since the ETag you sent; nothing was ${done}.`);
}

/** The 412 of a member at `updated` that `p` refuses; undefined when it meets them. */
function unmet(p: Preconditions, n: number, updated: string, nothing: string): SvcError | undefined {
  if (p.ifMatch !== undefined && !p.ifMatch.includes(updated)) return changedSince(n, nothing);
  if (p.ifNoneMatch === '*') return new SvcError('precondition-failed', `Member ${n} exists, and If-None-Match: * asks that none does; nothing was ${nothing}.`);
  if (p.ifNoneMatch?.includes(updated)) return new SvcError('precondition-failed', `Member ${n} is at an ETag your If-None-Match names; nothing was ${nothing}.`);
  return undefined;
}

/**
 * Replaces the editable fields of member `id`, when the member meets `preconditions` (else 412,
 * nothing written). The write is conditional on the state they were checked against.
 */
export async function updateMember(store: Store, model: Model, id: unknown, values: Record<string, unknown>, preconditions: Preconditions = {}): Promise<Member> {
  const n = parseId(id);
  if (n === undefined) throw new SvcError('member-not-found', `No ${model.name} member has the id ${String(id)}.`);
  const existing = await store.get(model, n);
  if (!existing) throw new SvcError('member-not-found', `No ${model.name} member has the id ${n}.`);
  const refused = unmet(preconditions, n, existing.updated, 'written');
  if (refused) throw refused;
  const data = validateUpdate(model, values, false, existing);
  // Conditional on what was validated against, so a concurrent update cannot slip in between.
  const result = await store.replace(model, n, data, nextUpdated(existing.updated), existing.updated);
  if (result.ok) return result.value;
  if (result.reason === 'not-found') throw new SvcError('member-not-found', `No ${model.name} member has the id ${n}.`);
  if (preconditions.ifMatch !== undefined) throw changedSince(n, 'written');
  // Lost a race with another writer: try again on the new state (and its preconditions with it).
  return updateMember(store, model, n, values, preconditions);
}

export async function deleteMember(store: Store, model: Model, id: unknown, preconditions: Preconditions = {}): Promise<boolean> {
  const n = parseId(id);
  if (n === undefined) return false;
  let ifUpdated: string | undefined;
  if (preconditions.ifMatch !== undefined || preconditions.ifNoneMatch !== undefined) {
    const existing = await store.get(model, n);
    if (!existing) return false;
    const refused = unmet(preconditions, n, existing.updated, 'deleted');
    if (refused) throw refused;
    ifUpdated = existing.updated;
  }
  const result = await store.delete(model, n, ifUpdated);
  if (result.ok) return true;
  if (result.reason === 'conflict') {
    if (preconditions.ifMatch !== undefined) throw changedSince(n, 'deleted');
    return deleteMember(store, model, n, preconditions);
  }
  return false;
}
