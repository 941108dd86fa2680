// HttpResponse `batched` (src/server/response.ts): a whole response ended in a turn of the event loop
// goes to the socket at the end of that turn, with the others ended in it; sendEnded() sends them at
// once (the server's shutdown does, so that none is still pending when it looks for idle
// connections); abort() sends what end() left first. An unbatched response goes at once.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { HttpResponse, sendEnded } from '../../src/server/response.ts';

/** A server whose requests `handle` answers through an HttpResponse; the response of each GET is read whole. */
async function serverWith(handle: (sink: HttpResponse, res: ServerResponse, req: IncomingMessage) => void) {
  const server = createServer((req, res) => handle(new HttpResponse(req, res, 10_000, req.url === '/batched'), res, req));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (path: string) => fetch(`http://127.0.0.1:${port}${path}`).then(async (r) => ({ status: r.status, text: await r.text() }));
}

t.test('a batched response is handed to the socket at the end of the turn, an unbatched one at once', async (t) => {
  const seen: Record<string, boolean[]> = {};
  const get = await serverWith((sink, res, req) => {
    sink.end(`{"path":"${req.url}"}`);
    const at = [res.writableEnded];
    seen[req.url!] = at;
    setImmediate(() => at.push(res.writableEnded));
  });
  t.same(await get('/batched'), { status: 200, text: '{"path":"/batched"}' });
  t.same(await get('/now'), { status: 200, text: '{"path":"/now"}' });
  t.same(seen['/batched'], [false, true], 'batched: not yet in the turn that ended it, then sent');
  t.same(seen['/now'], [true, true], 'unbatched: sent at end()');
});

t.test('sendEnded() sends the pending ones now', async (t) => {
  let sentAtOnce: boolean | undefined;
  const get = await serverWith((sink, res) => {
    sink.end('flushed');
    sendEnded();
    sentAtOnce = res.writableEnded;
  });
  t.same(await get('/batched'), { status: 200, text: 'flushed' });
  t.equal(sentAtOnce, true);
});

t.test('abort() after a batched end: the whole response is still sent, then the connection closes', async (t) => {
  const get = await serverWith((sink) => {
    sink.end('complete');
    sink.abort();
  });
  t.same(await get('/batched'), { status: 200, text: 'complete' });
});
