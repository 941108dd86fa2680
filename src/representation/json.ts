// The JSON representation: a member is an object of its fields, a collection an array of members.

import { SvcError } from '../errors.ts';
import type { Member } from '../model/types.ts';
import type { ParsedBody, Representation } from './representation.ts';

/** Members per streamed chunk of a list: large enough to amortise writes, small enough to stream. */
const CHUNK_MEMBERS = 64;

export const json: Representation = {
  name: 'json',
  mediaType: 'application/json',
  contentType: 'application/json; charset=utf-8',
  defaultOrder: [],
  needsNewest: false,

  async *renderCollection(_ctx, members: AsyncIterable<Member>) {
    let buf = '[';
    let n = 0;
    for await (const m of members) {
      buf += (n++ === 0 ? '' : ',') + JSON.stringify(m);
      if (n % CHUNK_MEMBERS === 0) {
        yield buf;
        buf = '';
      }
    }
    yield buf + ']';
  },

  renderMember(_ctx, member) {
    return JSON.stringify(member);
  },

  parseMember(body): ParsedBody {
    if (body.trim() === '') throw new SvcError('invalid-json', 'The body is empty: send a JSON object of member fields.');
    let value: unknown;
    try {
      // JSON.parse defines `__proto__` as a plain own key, never as the prototype; the validator
      // then rejects it as an unknown field.
      value = JSON.parse(body);
    } catch (e) {
      throw new SvcError('invalid-json', `The body is not valid JSON: ${(e as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new SvcError('invalid-json', 'The body must be a JSON object of member fields.');
    }
    return { values: value as Record<string, unknown>, text: false };
  },
};
