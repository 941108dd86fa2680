// The Atom representation (README "Representations", RFC 4287): a list is a feed, a member an entry with XOXO content.

import { hash } from 'node:crypto';
import type { Member, Model } from '../model/types.ts';
import { ownValue, valueText } from '../model/values.ts';
import { ATOM_NS, XHTML_NS } from './atom-ns.ts';
import { readAtomEntry } from './atom-read.ts';
import { templatesOf, type AtomTemplates } from './atom-templates.ts';
import type { ParsedBody, RenderContext, Representation } from './representation.ts';
import { escapeXml } from './xml-escape.ts';

export { templateErrors } from './atom-templates.ts';

/** A list is written in chunks of about this many UTF-16 code units, so that huge feeds stream. */
const CHUNK_SIZE = 16 * 1024;

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n';
const PAGING_RELS = ['first', 'prev', 'next'] as const;

/** What a model's entries share: compiled templates, and the XOXO head and `<dt>`s written once. */
interface EntryShape {
  /** Names the shape in the keys of rendered entries (entryOfText): one per Model object. */
  readonly serial: number;
  readonly templates: AtomTemplates;
  /** `<content type="xhtml"><div …><ol class="xoxo"><li name="…"><dl>` */
  readonly contentHead: string;
  /** Per field, in model order: its name and `<dt>name</dt><dd>`. */
  readonly fields: readonly (readonly [string, string])[];
}

const shapes = new WeakMap<Model, EntryShape>();
let shapeSerial = 0;

function shapeOf(model: Model): EntryShape {
  let shape = shapes.get(model);
  if (!shape) {
    shape = {
      serial: ++shapeSerial,
      templates: templatesOf(model),
      contentHead: `<content type="xhtml"><div xmlns="${XHTML_NS}"><ol class="xoxo"><li name="${escapeXml(model.name)}"><dl>`,
      fields: [...model.fields.keys()].map((name) => [name, `<dt>${escapeXml(name)}</dt><dd>`] as const),
    };
    shapes.set(model, shape);
  }
  return shape;
}

/** One `<entry>` (without a namespace declaration: the caller's root carries it). */
function entry(shape: EntryShape, collectionUrl: string, m: Member): string {
  const t = shape.templates;
  const url = escapeXml(`${collectionUrl}/${m.id}`);
  let out = `<entry><title>${t.title(m)}</title><link href="${url}?format_as=atom"/><link rel="edit" href="${url}"/><id>${url}</id><updated>${escapeXml(m.updated)}</updated><author><name>${t.authorName(m)}</name></author>`;
  if (t.summary) out += `<summary>${t.summary(m)}</summary>`;
  out += shape.contentHead;
  for (const [name, dt] of shape.fields) {
    const v = ownValue(m, name);
    // Absent fields have no key (README "The default handler"): they get no dt/dd at all, unlike an empty string.
    if (v === undefined || v === null) continue;
    out += `${dt}${escapeXml(valueText(v))}</dd>`;
  }
  return out + '</dl></li></ol></div></content></entry>';
}

/**
 * Entries rendered from members' JSON texts lately, by what the entry's bytes depend on: the
 * model (its shape's serial: a changed model file is a new Model), the collection URL its links
 * are built from, and the member's JSON text, which holds all of the member, `updated` included (a
 * member written again is another text, even within one millisecond, so no entry outlives what it
 * shows). Texts are a store's (`Store.pageJson`), so a hot page is a join of kept entries, no member
 * parsed, escaped or templated again. Only pages read whole are kept: a streamed list would push
 * out every hot entry for entries read once. Bounded, for the whole process and every tenant, by
 * ENTRY_CACHE_CHARS; the oldest go first.
 */
const entryCache = new Map<string, { readonly entry: string; readonly chars: number }>();
let entryCacheChars = 0;
/** The most UTF-16 code units of keys and entries kept (about 8 MB at most). */
const ENTRY_CACHE_CHARS = 4 * 1024 * 1024;
/** A member's text over this many code units is rendered each time, not kept. */
const ENTRY_CACHE_MAX_TEXT = 16 * 1024;

/** UTF-16 code units the kept entries and their keys hold now (for tests: at most ENTRY_CACHE_CHARS). */
export function keptEntryChars(): number {
  return entryCacheChars;
}

/** The entry of the member whose JSON text is `text`, kept or rendered (and then kept). */
function entryOfText(shape: EntryShape, collectionUrl: string, prefix: string, text: string): string {
  if (text.length > ENTRY_CACHE_MAX_TEXT) return entry(shape, collectionUrl, JSON.parse(text) as Member);
  const key = prefix + text;
  const kept = entryCache.get(key);
  if (kept !== undefined) return kept.entry;
  const rendered = entry(shape, collectionUrl, JSON.parse(text) as Member);
  const chars = key.length + rendered.length;
  entryCache.set(key, { entry: rendered, chars });
  entryCacheChars += chars;
  for (const [oldest, { chars }] of entryCache) {
    if (entryCacheChars <= ENTRY_CACHE_CHARS) break;
    entryCache.delete(oldest);
    entryCacheChars -= chars;
  }
  return rendered;
}

function feedHead(ctx: RenderContext): string {
  const url = escapeXml(ctx.collectionUrl);
  const t = templatesOf(ctx.model);
  // rel="self" as RFC 4287 §4.1.1 recommends; the plain link is README "Representations"'s feed/link (alternate).
  let out = `${DECLARATION}<feed xmlns="${ATOM_NS}"><title>${t.feedTitle}</title><link href="${url}?format_as=atom"/><link rel="self" href="${url}?format_as=atom"/>`;
  for (const rel of PAGING_RELS) {
    const href = ctx.links?.[rel];
    if (href !== undefined) out += `<link rel="${rel}" href="${escapeXml(href)}"/>`;
  }
  return `${out}<id>${url}</id><updated>${escapeXml(ctx.newest || new Date().toISOString())}</updated>`;
}

/** A feed of `members` as they come, in chunks of CHUNK_SIZE. */
async function* feed(ctx: RenderContext, shape: EntryShape, members: AsyncIterable<Member>): AsyncIterable<string> {
  let buf = feedHead(ctx);
  for await (const m of members) {
    buf += entry(shape, ctx.collectionUrl, m);
    if (buf.length >= CHUNK_SIZE) {
      yield buf;
      buf = '';
    }
  }
  yield buf + '</feed>';
}

/** Members from their JSON texts, as they come. */
async function* membersOf(texts: AsyncIterable<string>): AsyncIterable<Member> {
  for await (const text of texts) yield JSON.parse(text) as Member;
}

export const atom: Representation = {
  name: 'atom',
  mediaType: 'application/atom+xml',
  // One content type for feeds and entries: RFC 5023's type=entry|feed parameter is optional,
  // and the seam has a single content type per representation.
  contentType: 'application/atom+xml; charset=utf-8',
  bodyError: 'invalid-atom',
  defaultOrder: [{ field: 'updated', desc: true }],
  needsNewest: true,
  etagSuffix: '-atom',

  // An entry's links are absolute, built from the collection URL (--public-url, or the request's
  // Host): with another one they are other bytes, and a client that revalidated an entry cached
  // before --public-url changed would keep links to the old URL.
  etagVersion(ctx) {
    return hash('sha256', `${ctx.model.version} ${ctx.collectionUrl}`, 'hex').slice(0, 8);
  },

  renderCollection(ctx, members) {
    const shape = shapeOf(ctx.model);
    if (Array.isArray(members)) {
      let buf = feedHead(ctx);
      for (const m of members as readonly Member[]) buf += entry(shape, ctx.collectionUrl, m);
      return [buf + '</feed>'];
    }
    return feed(ctx, shape, members as AsyncIterable<Member>);
  },

  // Only from texts a store keeps: from a store that keeps none (MongoDB), each text would be made
  // from a member to be read back.
  textsKeptOnly: true,

  renderJsonTexts(ctx, texts) {
    const shape = shapeOf(ctx.model);
    if (!Array.isArray(texts)) return feed(ctx, shape, membersOf(texts as AsyncIterable<string>));
    const prefix = `${shape.serial}\u0000${ctx.collectionUrl}\u0000`;
    let buf = feedHead(ctx);
    for (const text of texts as readonly string[]) buf += entryOfText(shape, ctx.collectionUrl, prefix, text);
    return [buf + '</feed>'];
  },

  renderMember(ctx, member) {
    const body = entry(shapeOf(ctx.model), ctx.collectionUrl, member);
    // The entry is the root of its own document (RFC 4287 §4.1.2): it declares the namespace.
    return `${DECLARATION}<entry xmlns="${ATOM_NS}"${body.slice('<entry'.length)}`;
  },

  parseMember(body): ParsedBody {
    return { values: readAtomEntry(body), text: true };
  },
};
