// Reading a request body within the size limit (README "Limits": over it, 413).

import type { IncomingMessage } from 'node:http';
import { SvcError } from '../errors.ts';

const EMPTY = Buffer.alloc(0);

/**
 * The request's body, at most `maxBytes` of it. `willRead` is called once the body is known to be
 * wanted and not refused from the head alone, before it is read: where the client waits for
 * `100 Continue` (`Expect: 100-continue`), that is when it is sent, so that a body the server would
 * refuse (a Content-Length over the limit, a transfer coding it cannot undo) is never invited.
 */
export async function readBody(req: IncomingMessage, maxBytes: number, willRead?: () => void): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    throw new SvcError('body-too-large', `The body is ${declared} bytes; at most ${maxBytes} are accepted.`);
  }
  const coding = req.headers['transfer-encoding'];
  // node:http undoes only `chunked`: a body in another transfer coding would be read still coded (RFC 9112 §6.1: 501).
  if (coding !== undefined && coding.split(',').some((c) => c.trim().toLowerCase() !== 'chunked')) {
    throw new SvcError('transfer-coding-not-implemented', `Transfer-Encoding ${JSON.stringify(coding)} is not implemented: send the body with Content-Length, or chunked alone.`);
  }
  if (declared === '0' || (declared === undefined && coding === undefined)) return EMPTY;
  willRead?.();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new SvcError('body-too-large', `The body is over ${maxBytes} bytes, the most accepted.`);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** Decodes UTF-8 and refuses anything else (Buffer's toString() puts U+FFFD in place of bad bytes). A byte order mark is kept. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `body` as text, or undefined when it is not UTF-8. */
export function utf8Text(body: Uint8Array): string | undefined {
  try {
    return UTF8.decode(body);
  } catch {
    return undefined;
  }
}

/** A Content-Type header: its media type (lower case, JSON when none is sent: README "The default handler") and its charset, if it names one (lower case, unquoted). */
export function contentTypeOf(header: string | undefined): { mediaType: string; charset: string | undefined } {
  const [type = '', ...params] = (header ?? '').split(';');
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq !== -1 && param.slice(0, eq).trim().toLowerCase() === 'charset') charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return { mediaType: type.trim().toLowerCase() || 'application/json', charset };
}

/** The charsets a body may declare: it is read as UTF-8 only (JSON is UTF-8, RFC 8259 §8.1; an Atom entry names its encoding in its XML declaration). */
export const UTF8_CHARSETS: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'us-ascii']);

/**
 * The content codings a Content-Encoding header applies to the body (lower case, in order),
 * `identity` (no coding) left out. The server decodes none: a body in any of them is 415.
 */
export function contentCodings(header: string | undefined): string[] {
  return (header ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
}
