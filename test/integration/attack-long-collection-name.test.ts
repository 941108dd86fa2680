// Attack: a collection (or type) name longer than a file name may be. The server looks the model
// file up by name, and the file system refuses names over 255 bytes (ENAMETOOLONG): that must be
// "no such collection", not a 500.

import t from 'tap';
import { notesServer, send } from '../helpers/server.ts';

const server = await notesServer(t, 'string');

const long = 'a'.repeat(4000);

t.test('a very long collection name is 404 collection-not-found', async (t) => {
  for (const method of ['GET', 'POST', 'DELETE']) {
    const res = await send(server.at(`/resources/${long}`), method, method === 'POST' ? { text: 'x' } : undefined);
    t.equal(res.status, 404, method);
    t.match(res.headers.get('content-type'), /^application\/problem\+json/);
    const problem = (await res.json()) as { code: string; detail: string };
    t.equal(problem.code, 'collection-not-found');
    t.match(problem.detail, /No collection/);
  }
  const member = await send(server.at(`/resources/${long}/1`), 'GET');
  t.equal(member.status, 404);
  t.equal(((await member.json()) as { code: string }).code, 'collection-not-found');
});

t.test('a very long type name is 404 type-not-found', async (t) => {
  const res = await send(server.at(`/resources/types/${long}`), 'GET');
  t.equal(res.status, 404);
  t.equal(((await res.json()) as { code: string }).code, 'type-not-found');
});

t.test('the server still answers and nothing was stored', async (t) => {
  const res = await send(server.at('/resources/notes'), 'GET');
  t.equal(res.status, 200);
  t.same(await res.json(), []);
});
