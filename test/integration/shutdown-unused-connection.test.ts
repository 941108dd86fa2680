// SIGTERM closes at once a connection that has sent nothing (a client's or a load balancer's
// connection opened ahead of use): nothing was asked on it. It held the drain for its whole 10 s,
// on every restart, since neither node:http's idle close nor the drain counts it.

import { once } from 'node:events';
import { connect } from 'node:net';
import t from 'tap';
import { spawnServer } from '../helpers/process.ts';
import { EXAMPLE_APP } from '../helpers/server.ts';

t.test('an unused connection does not hold the drain', async (t) => {
  const server = await spawnServer(['--app', EXAMPLE_APP, '--store', 'sqlite::memory:']);
  t.teardown(() => void server.child.kill('SIGKILL'));
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, 'connect');
  const closedBy = new Promise<string>((resolve) => {
    socket.once('close', () => resolve('the server closed it'));
    server.exited.then(() => resolve('the process exited first'));
  });
  const signalled = performance.now();
  server.child.kill('SIGTERM');
  t.equal(await closedBy, 'the server closed it');
  t.equal(await server.exited, 0);
  // The drain is 10 s; with nothing in flight, stopping takes well under a second (5 s: both cores busy).
  const took = performance.now() - signalled;
  t.ok(took < 5000, `exited ${Math.round(took)} ms after SIGTERM`);
});
