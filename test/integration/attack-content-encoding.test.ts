// Attack: a request body in a content coding (Content-Encoding: gzip, br). The server decodes
// none: a br-labelled plain body was stored as if plain, a gzip one failed as invalid JSON.
// RFC 9110 §8.4, §12.5.3: a coding the server does not support is 415, with Accept-Encoding.

import t, { type Test } from 'tap';
import { gzipSync } from 'node:zlib';
import { appServer } from '../helpers/server.ts';

const server = await appServer(t, { models: { notes: { fields: { text: { type: 'string' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } });
const url = server.at('/resources/notes');

async function check415(t: Test, res: Response, coding: string): Promise<void> {
  t.equal(res.status, 415, coding);
  t.equal(res.headers.get('content-type'), 'application/problem+json');
  t.equal(res.headers.get('accept-encoding'), 'identity', 'Accept-Encoding says what is accepted');
  const problem = (await res.json()) as { code: string; detail: string };
  t.equal(problem.code, 'unsupported-media-type');
  t.match(problem.detail, coding);
  t.match(problem.detail, /uncompressed/);
}

t.test('a create or update body in a content coding is 415, and nothing is stored or changed', async (t) => {
  const plain = JSON.stringify({ text: 'plain' });
  const bodies: Record<string, string | Uint8Array> = { br: plain, gzip: gzipSync(plain), 'gzip, identity': gzipSync(plain), DEFLATE: plain };
  for (const [coding, body] of Object.entries(bodies)) {
    await check415(t, await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': coding }, body }), coding.split(',')[0]!.toLowerCase());
  }
  t.same(await (await fetch(url)).json(), [], 'nothing stored');
  const created = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: plain });
  const member = `${url}/${((await created.json()) as { id: number }).id}`;
  await check415(t, await fetch(member, { method: 'PUT', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync('{"text":"new"}') }), 'gzip');
  t.equal(((await (await fetch(member)).json()) as { text: string }).text, 'plain', 'nothing changed');
});

t.test('identity, or no coding, is read as before', async (t) => {
  for (const coding of ['identity', 'IDENTITY', '']) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': coding }, body: '{"text":"ok"}' });
    t.equal(res.status, 201, JSON.stringify(coding));
  }
});

t.test('a request without a body to read is not refused for a Content-Encoding', async (t) => {
  t.equal((await fetch(url, { headers: { 'content-encoding': 'gzip' } })).status, 200, 'list');
});
