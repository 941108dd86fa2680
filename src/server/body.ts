// Reading a request body within the size limit (README "Limits": over it, 413).

import type { IncomingMessage } from 'node:http';
import { SvcError } from '../errors.ts';

const EMPTY = Buffer.alloc(0);

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    throw new SvcError('body-too-large', `The body is ${declared} bytes; at most ${maxBytes} are accepted.`);
  }
  if (declared === '0' || (declared === undefined && req.headers['transfer-encoding'] === undefined)) return EMPTY;
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

/**
 * The charset a Content-Type declares that is not UTF-8 (lower case), else undefined: bodies are
 * read as UTF-8 only (JSON is UTF-8, RFC 8259 §8.1; Atom entries name theirs in the XML declaration).
 */
export function otherCharset(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  for (const param of contentType.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const value = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (value !== 'utf-8' && value !== 'utf8' && value !== 'us-ascii') return value;
  }
  return undefined;
}
