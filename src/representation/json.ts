// The JSON representation: a member is an object of its fields, a collection an array of members.

import type { Member } from '../model/types.ts';
import { readJsonMember } from './json-read.ts';
import type { ParsedBody, Representation } from './representation.ts';

/** Members per streamed chunk of a list: large enough to amortise writes, small enough to stream. */
const CHUNK_MEMBERS = 64;

async function* texts(members: AsyncIterable<Member>): AsyncIterable<string> {
  for await (const m of members) yield JSON.stringify(m);
}

/** A JSON array of members' texts, in chunks of CHUNK_MEMBERS. */
async function* jsonArray(texts: AsyncIterable<string>): AsyncIterable<string> {
  let buf = '[';
  let n = 0;
  for await (const text of texts) {
    buf += (n++ === 0 ? '' : ',') + text;
    if (n % CHUNK_MEMBERS === 0) {
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
