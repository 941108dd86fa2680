// A streamed JSON list is written in chunks bounded in size, as an Atom feed's are: chunks of a
// fixed number of members held 64 of them before the first write, 64 MiB for members near 1 MiB
// (README "Limits"), for each such list in progress.

import t from 'tap';
import { json } from '../../src/representation/json.ts';
import type { RenderContext } from '../../src/representation/representation.ts';

async function* textsOf(n: number, size: number): AsyncIterable<string> {
  for (let i = 0; i < n; i++) yield JSON.stringify({ id: i, text: String(i % 10).repeat(size) });
}

async function chunks(n: number, size: number): Promise<string[]> {
  const out: string[] = [];
  for await (const c of json.renderJsonTexts!({} as RenderContext, textsOf(n, size))) out.push(c);
  return out;
}

t.test('large members: each chunk holds little more than one member', async (t) => {
  const size = 256 * 1024;
  const got = await chunks(40, size);
  t.same(JSON.parse(got.join('')).map((m: { id: number }) => m.id), [...Array(40).keys()], 'the whole array, in order');
  const largest = Math.max(...got.map((c) => c.length));
  t.ok(largest < 2 * size, `the largest chunk is ${largest} characters, under two members`);
});

t.test('small members: chunks of many members (writes amortised)', async (t) => {
  const got = await chunks(1000, 100);
  t.same(JSON.parse(got.join('')).length, 1000);
  t.ok(got.length <= 10, `${got.length} chunks for 1,000 members of ~110 characters`);
  t.ok(got.length >= 3, 'but not one: the list streams');
});

t.test('no members: an empty array', async (t) => {
  t.equal((await chunks(0, 0)).join(''), '[]');
});
