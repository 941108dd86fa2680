// The log's JSON lines and its buffered writes to standard error.

import { spawnSync } from 'node:child_process';
import t, { type Test } from 'tap';
import { jsonLine, Logger, logSink, serverLogger, type LogRecord } from '../../src/exchange/log.ts';

t.test('a JSON line: time, level and msg first, then the fields; a field cannot replace the first three', async (t) => {
  const before = Date.now();
  const line = JSON.parse(jsonLine({ level: 'info', msg: 'GET / 200', fields: { requestId: 'r1', status: 200, durationMs: 1.5 } }));
  t.same(Object.keys(line), ['time', 'level', 'msg', 'requestId', 'status', 'durationMs']);
  t.match(line, { level: 'info', msg: 'GET / 200', requestId: 'r1', status: 200, durationMs: 1.5 });
  const time = Date.parse(line.time);
  t.ok(time >= before && time <= Date.now(), `time ${line.time} is now`);
  const hostile = JSON.parse(jsonLine({ level: 'warn', msg: 'real', fields: { msg: 'forged', time: 'then', level: 'debug', tenant: 'a' } }));
  t.same(hostile.msg, 'real');
  t.same(hostile.level, 'warn');
  t.not(hostile.time, 'then');
  t.same(hostile.tenant, 'a');
});

t.test('each line carries the time it was written, also when lines are formatted once per millisecond', async (t) => {
  const first = JSON.parse(jsonLine({ level: 'info', msg: 'a', fields: {} })).time;
  const ms = Date.parse(first);
  // Wait (on the clock, not a sleep) for the next millisecond.
  while (Date.now() <= ms + 1);
  const second = JSON.parse(jsonLine({ level: 'info', msg: 'b', fields: {} })).time;
  t.ok(Date.parse(second) > ms, `${second} after ${first}`);
});

/**
 * Standard error replaced, for the test, by a recorder of its writes: `next()` resolves at the
 * next write (the writer's timer is unreferenced: the referenced one here keeps the process alive
 * meanwhile, and fails the wait after 10 s); `restore()` puts the real one back.
 */
function captureStderr(t: Test): { writes: string[]; next(): Promise<void>; restore(): void } {
  const writes: string[] = [];
  const write = process.stderr.write;
  let wrote: () => void = () => {};
  process.stderr.write = ((text: string) => {
    writes.push(text);
    wrote();
    return true;
  }) as typeof process.stderr.write;
  const restore = () => {
    process.stderr.write = write;
  };
  t.teardown(restore);
  const next = () =>
    new Promise<void>((resolve, reject) => {
      const limit = setTimeout(() => reject(new Error('nothing was written within 10 s')), 10_000);
      wrote = () => {
        clearTimeout(limit);
        resolve();
      };
    });
  return { writes, next, restore };
}

t.test('lines logged together reach standard error in one write, soon, and in order', async (t) => {
  const { writes, next, restore } = captureStderr(t);
  const sink = logSink('text', 'info');
  const first = performance.now();
  for (let i = 0; i < 300; i++) sink({ level: 'info', msg: `line ${i}`, fields: {} });
  t.same(writes, [], 'nothing is written in the turn that logs');
  // Over several turns of the event loop too.
  for (let i = 300; i < 310; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    sink({ level: 'info', msg: `line ${i}`, fields: {} });
  }
  const last = performance.now();
  const started = performance.now();
  while (writes.join('').split('\n').length <= 310) await next();
  restore();
  // One write per 20 ms of logging at most (a turn per line wrote 11): on a machine so busy that the
  // ten turns took longer, the timer may have fired between them; the bound allows for that.
  const allowed = 1 + Math.floor((last - first) / 10);
  t.ok(writes.length <= allowed, `${writes.length} writes for 310 lines logged over ${(last - first).toFixed(1)} ms (at most ${allowed})`);
  t.same(
    writes.join('').split('\n').slice(0, -1),
    Array.from({ length: 310 }, (_, i) => `svc: line ${i}`),
  );
  // A bound that holds on a busy machine: the lines wait 20 ms, not until more come.
  t.ok(performance.now() - started < 2000, 'written without more lines to push them');
});

t.test('64 KiB of pending lines are written at once, without waiting', async (t) => {
  const { writes, next } = captureStderr(t);
  const sink = logSink('text', 'info');
  const long = 'x'.repeat(1000);
  for (let i = 0; i < 70; i++) sink({ level: 'info', msg: long, fields: {} });
  t.equal(writes.length, 1, 'one write within the turn');
  t.ok(writes[0]!.length >= 64 * 1024);
  // The rest follow on the timer.
  while (writes.length < 2) await next();
  t.equal(writes.join('').split('\n').length - 1, 70);
});

t.test('lines still pending when the process exits are written', async (t) => {
  const child = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import { logSink } from ${JSON.stringify(new URL('../../src/exchange/log.ts', import.meta.url).href)};
const sink = logSink('json', 'info');
for (let i = 0; i < 1000; i++) sink({ level: 'info', msg: 'line ' + i, fields: { i } });
process.exit(3);`],
    { encoding: 'utf8' },
  );
  t.equal(child.status, 3);
  const lines = child.stderr.split('\n').filter((l) => l.startsWith('{'));
  t.equal(lines.length, 1000, child.stderr.slice(0, 500));
  t.same(JSON.parse(lines[999]!).i, 999);
});

t.test('a logger knows the lowest level its sink writes, and its children inherit it', async (t) => {
  const records: LogRecord[] = [];
  const log = new Logger((r) => records.push(r), {}, 'warn');
  t.equal(log.enabled('info'), false);
  t.equal(log.enabled('warn'), true);
  t.equal(log.enabled('error'), true);
  const child = log.child({ requestId: 'r' });
  t.equal(child.enabled('info'), false, 'a child writes what its parent writes');
  t.equal(child.enabled('warn'), true);
  const everything = new Logger((r) => records.push(r));
  t.equal(everything.enabled('debug'), true, 'a logger given only a sink hands it every record');
  const server = serverLogger('json', 'warn');
  t.equal(server.enabled('info'), false, "the server's logger builds no record below --log-level");
  t.equal(server.child({ requestId: 'r' }).enabled('warn'), true);
});
