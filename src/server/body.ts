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
