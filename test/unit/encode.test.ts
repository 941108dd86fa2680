// The response body's bytes (src/server/response.ts encoding): all-ASCII text is written byte for
// byte, any other text through the UTF-8 encoder; either way the bytes are UTF-8's, and their
// number is the Content-Length.

import t from 'tap';
import { encoding } from '../../src/server/response.ts';

/** The bytes the socket gets for `text`, and the length the response declares. */
function encode(text: string): Buffer {
  const { bytes, encoding: as } = encoding(text);
  const written = Buffer.from(text, as);
  if (written.length !== bytes) throw new Error(`declared ${bytes} bytes, wrote ${written.length}`);
  return written;
}

const TEXTS = [
  '',
  '{"id":1,"name":"ada"}',
  'é', // Latin-1, one UTF-16 unit, two bytes: a byte-for-byte copy would send the wrong byte
  '{"name":"Zoë","city":"Zürich"}',
  '\u007f\u0080',
  '€ and 中文',
  '😀 beside ascii', // a surrogate pair: two units, four bytes
  'lone \ud800 surrogate', // encoded as U+FFFD, three bytes
  'x'.repeat(100_000) + 'ÿ',
  'ÿ'.repeat(3) + 'a'.repeat(5), // 8 units, 11 bytes
];

for (const text of TEXTS) {
  t.same(encode(text), Buffer.from(text, 'utf8'), JSON.stringify(text.slice(0, 40)));
}

t.test('ASCII text of any length is its own bytes', async (t) => {
  let text = '';
  for (let c = 0; c < 128; c++) text += String.fromCharCode(c);
  t.same(encode(text), Buffer.from(text, 'utf8'));
  t.equal(encode(text).length, 128);
});
