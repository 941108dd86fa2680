// The representation seam: each media type declares itself here, so a new one needs no routing change.

import type { Member, Model } from '../model/types.ts';

/** What a representation needs to render a list or a member, besides the members. */
export interface RenderContext {
  readonly model: Model;
  /** Absolute collection URL, e.g. `http://host/resources/employees`. */
  readonly collectionUrl: string;
  /** Paging links of a list (absolute URLs); absent when the list is not paged. */
  readonly links?: { readonly first?: string; readonly next?: string; readonly prev?: string };
  /** Members matching the filters (X-Total-Count). */
  readonly total?: number;
  /** Newest `updated` of the members matching the filters, when the representation asked for it. */
  readonly newest?: string;
}

/** Raw member values read from a body: typed JSON values, or strings when `text` is true. */
export interface ParsedBody {
  readonly values: Record<string, unknown>;
  readonly text: boolean;
}

export interface Representation {
  /** The `format_as` name. */
  readonly name: 'json' | 'atom';
  /** Media type of responses, and of request bodies it reads. */
  readonly mediaType: string;
  /** Content-Type header value of responses. */
  readonly contentType: string;
  /** Lists in this representation default to this order (JSON: creation; Atom: `updated` descending). */
  readonly defaultOrder: readonly { readonly field: string; readonly desc: boolean }[];
  /** True when `renderCollection` needs `RenderContext.newest` (Atom's feed/updated). */
  readonly needsNewest: boolean;
  /**
   * What this representation adds to a member's entity tag, inside its quotes. The JSON and the
   * Atom of a member are different bytes, so they need different strong validators (RFC 9110
   * §8.8.3); each suffix starts with a character no `updated` stamp holds (handler/members.ts
   * `etagOf`), and no suffix is another's. JSON's is '', so its tags are those of before Atom had one.
   */
  readonly etagSuffix: string;
  /**
   * What a member's bytes in this representation depend on besides the member, as the 8 hex
   * digits its entity tag holds (handler/members.ts `etagOf`): the model's version
   * (Model.version), and anything else the representation writes, so that a cache revalidating a
   * member of other bytes never gets 304 (RFC 9110 §8.8.3).
   */
  etagVersion(ctx: RenderContext): string;
  /**
   * Renders a list as chunks, so that a large list streams: the caller writes each chunk and
   * waits for the socket to drain. `members` is consumed exactly once. A page read whole comes as
   * an array, and is rendered in one piece, with no promise per member.
   */
  renderCollection(ctx: RenderContext, members: AsyncIterable<Member> | readonly Member[]): AsyncIterable<string> | readonly string[];
  /**
   * Renders a list from each member's JSON text (`Store.listJson`), for a representation that
   * embeds members as JSON (a store that keeps that text with each member builds no objects for a
   * page), or that does less from the text (Atom keeps rendered entries by it). Same output as `renderCollection` of the same members. A page read whole comes as an
   * array, and is rendered in one piece, with no promise per member.
   */
  renderJsonTexts?(ctx: RenderContext, texts: AsyncIterable<string> | readonly string[]): AsyncIterable<string> | readonly string[];
  /**
   * True when `renderJsonTexts` pays only with the texts a store keeps (one with `Store.pageJson`):
   * from any other store the list is rendered from members (Atom: it reads each text back, and
   * keeps the entries of pages by their text).
   */
  readonly textsKeptOnly?: boolean;
  renderMember(ctx: RenderContext, member: Member): string;
  /** Renders a member from its JSON text (`Store.getJson`), for a representation that is that text: same output as `renderMember`. */
  renderMemberJson?(ctx: RenderContext, text: string): string;
  /** Parses a request body; throws SvcError (`invalid-json`, `invalid-atom`) when it cannot. */
  parseMember(body: string, model: Model): ParsedBody;
  /** The problem code of a body it cannot read (a body that is not UTF-8, too). */
  readonly bodyError: 'invalid-json' | 'invalid-atom';
}
