// The JSON representation: a member is an object of its fields, a collection an array of members.

import type { Member } from '../model/types.ts';
import { readJsonMember } from './json-read.ts';
import type { ParsedBody, Representation } from './representation.ts';

/**
 * Characters per streamed chunk of a list, about: large enough to amortise writes (64 members of
 * the bench's ~450 characters), small enough to stream. A chunk ends after the member that takes it
 * past this, so a large member goes out alone: chunks of 64 members held 64 MiB before the first
 * write when members were near 1 MiB, for each such list in progress.
 */
const CHUNK_CHARS = 32 * 1024;

async function* texts(members: AsyncIterable<Member>): AsyncIterable<string> {
  for await (const m of members) yield JSON.stringify(m);
}

/** A JSON array of members' texts, in chunks of about CHUNK_CHARS. */
async function* jsonArray(texts: AsyncIterable<string>): AsyncIterable<string> {
  let buf = '[';
  let first = true;
  for await (const text of texts) {
    buf += (first ? '' : ',') + text;
    first = false;
    if (buf.length >= CHUNK_CHARS) {
      yield buf;
      buf = '';
    }
  }
  yield buf + ']';
}

export const json: Representation = {
  name: 'json',
  mediaType: 'application/json',
  contentType: 'application/json; charset=utf-8',
  bodyError: 'invalid-json',
  defaultOrder: [],
  needsNewest: false,
  etagSuffix: '',

  // A member's JSON is its fields: no URL in it, so the same on every host.
  etagVersion(ctx) {
    return ctx.model.version;
  },

  renderCollection(_ctx, members: AsyncIterable<Member> | readonly Member[]) {
    return Array.isArray(members) ? [JSON.stringify(members)] : jsonArray(texts(members as AsyncIterable<Member>));
  },

  renderJsonTexts(_ctx, texts: AsyncIterable<string> | readonly string[]) {
    return Array.isArray(texts) ? [`[${texts.join(',')}]`] : jsonArray(texts as AsyncIterable<string>);
  },

  renderMember(_ctx, member) {
    return JSON.stringify(member);
  },

  renderMemberJson(_ctx, text: string) {
    return text;
  },

  parseMember(text): ParsedBody {
    return { values: readJsonMember(text), text: false };
  },
};
