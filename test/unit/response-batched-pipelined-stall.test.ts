// A large body written in one piece is cut after the stall time when its client stops reading
// (response.ts #cutIfStalled). Batched, end() leaves the body for the end of the turn: two
// pipelined responses ended in one turn then go out together, and the second is still queued
// behind the first (no socket) when it is handed over. Unbatched, the first has finished (and
// passed the socket on) by the time the second ends a tick later, so the second's stall is
// watched. Batched, it must be watched too: the connection, with the 40 MB it holds, must not stay
// open for a client that never reads.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import t from 'tap';
import { HttpResponse } from '../../src/server/response.ts';

const BIG = 'x'.repeat(40 * 1024 * 1024);
const STALL_MS = 200;

/** Two GETs pipelined by a client that reads nothing: whether the server closes the connection. */
async function stalledPipeline(batched: boolean): Promise<'cut' | 'still open'> {
  const sinks: HttpResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    sinks.push(new HttpResponse(req, res, STALL_MS, batched));
    if (sinks.length < 2) return;
    // Both requests are in: the first ends now, the second a tick later, in the same turn (two
    // handlers finishing in one turn of the event loop, as in a burst).
    const [first, second] = sinks as [HttpResponse, HttpResponse];
    first.end('small');
    process.nextTick(() => second.end(BIG));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let bound: NodeJS.Timeout | undefined;
  const outcome = new Promise<'cut' | 'still open'>((resolve) => {
    server.once('connection', (s) => s.once('close', () => resolve('cut')));
    // Only ends a failing test: the server cuts after STALL_MS of no reading.
    bound = setTimeout(() => resolve('still open'), 10_000);
  });
  const client = connect(port, '127.0.0.1', () => {
    client.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n');
    client.pause();
  });
  client.on('error', () => {});
  try {
    return await outcome;
  } finally {
    clearTimeout(bound);
    client.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

t.test('unbatched: the second pipelined response, stalled, is cut', async (t) => {
  t.equal(await stalledPipeline(false), 'cut');
});

t.test('batched: the second pipelined response, stalled, is cut', async (t) => {
  t.equal(await stalledPipeline(true), 'cut');
});
