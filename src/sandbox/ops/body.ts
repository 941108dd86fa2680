// `zget('/request/rawBody')`: the request's body as the client sent it, as text, asked of the host
// on first read (most handlers never read it, and a body may be a megabyte): for events whose body
// the server does not parse (postMember, putCollection, …), and for a signature over the bytes.

import type { Op } from '../guest.ts';

/** UTF-8 as sent; a byte sequence that is not UTF-8 reads as U+FFFD (create and update refuse such a body before any handler). */
const decoder = new TextDecoder('utf-8');

export const rawBody: Op = (call) => (call.ex.rawBody.length === 0 ? null : decoder.decode(call.ex.rawBody));
