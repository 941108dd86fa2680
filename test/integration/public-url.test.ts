// --public-url: absolute URLs come from the configured origin, not from the client's Host header.

import t from 'tap';
import { request } from 'node:http';
import { notesServer, send } from '../helpers/server.ts';

const server = await notesServer(t, 'string', { publicUrl: 'https://api.example.com' });

function post(host: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/resources/notes', headers: { host, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode!, location: res.headers.location });
    });
    req.on('error', reject);
    req.end('{"text":"x"}');
  });
}

t.test('Location, Link and Atom use the public origin whatever Host says', async (t) => {
  const created = await post('attacker.example.net');
  t.equal(created.status, 201);
  t.match(created.location, /^https:\/\/api\.example\.com\/resources\/notes\/\d+$/);
  await send(server.at('/resources/notes'), 'POST', { text: 'y' });
  const page = await fetch(server.at('/resources/notes?count=1'));
  t.match(page.headers.get('link'), /^<https:\/\/api\.example\.com\/resources\/notes\?start=0&count=1>; rel="first"/);
  const feed = await (await fetch(server.at('/resources/notes?format_as=atom'))).text();
  t.match(feed, '<id>https://api.example.com/resources/notes</id>');
  t.notMatch(feed, /127\.0\.0\.1/);
});
