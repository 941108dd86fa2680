// A client that goes away in the middle of its body is not an internal error: nothing is logged as one.

import t from 'tap';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { notesServer } from '../helpers/server.ts';

const server = await notesServer(t);
const logged: string[] = [];
const original = console.error;
console.error = (...args: unknown[]) => void logged.push(args.map(String).join(' '));
t.teardown(() => {
  console.error = original;
});

t.test('aborted uploads leave no internal-error line and store nothing', async (t) => {
  for (let i = 0; i < 5; i++) {
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.write('POST /resources/notes HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"');
      setTimeout(() => socket.destroy(), 20);
    });
    socket.on('error', () => {});
  }
  await sleep(300);
  t.same(logged.filter((l) => l.includes('internal error')), []);
  t.same(await (await fetch(server.at('/resources/notes'))).json(), []);
});
