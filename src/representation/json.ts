// The JSON representation: a member is an object of its fields, a collection an array of members.

import { SvcError } from '../errors.ts';
import type { Member } from '../model/types.ts';
import type { ParsedBody, Representation } from './representation.ts';

/** Members per streamed chunk of a list: large enough to amortise writes, small enough to stream. */
const CHUNK_MEMBERS = 64;

/**
 * Deepest nesting of arrays and objects accepted in a body (the body object is level 1). A member
 * is an object of scalar fields; handlers hold values of at most 100 levels (README, Limits), and
 * copying a deeper one into an isolate overflows its stack.
 */
export const MAX_JSON_DEPTH = 100;

/** True when `text` nests arrays and objects deeper than `max` (outside strings): one linear scan. */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included; an unterminated one is JSON.parse's to report.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

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
    // A byte order mark may precede JSON text; parsers may ignore it (RFC 8259 §8.1).
    const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    if (body.trim() === '') throw new SvcError('invalid-json', 'The body is empty: send a JSON object of member fields.');
    if (nestedDeeperThan(body, MAX_JSON_DEPTH)) {
      throw new SvcError('invalid-json', `The body is nested deeper than ${MAX_JSON_DEPTH} levels: send a JSON object of member fields.`);
    }
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
