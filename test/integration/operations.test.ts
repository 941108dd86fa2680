// What an operator sees: /healthz, /readyz, /metrics, request ids, the request log, the
// per-app concurrency cap, and --workers (restart after a crash, shared ids, drain on SIGTERM).

import { readFileSync } from 'node:fs';
import t from 'tap';
import { jsonLine, type LogRecord } from '../../src/exchange/log.ts';
import type { HandlerRuntime } from '../../src/exchange/runtime.ts';
import { spawnServer } from '../helpers/process.ts';
import { appServer, EXAMPLE_APP, makeApp, send } from '../helpers/server.ts';

const NOTES = { models: { notes: { fields: { text: { type: 'text' } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } };

/** Polls `url` until it answers 200, at most `ms` (a readiness probe does the same). */
async function until200(url: string, ms = 20_000): Promise<Response> {
  const end = Date.now() + ms;
  for (;;) {
    const res = await fetch(url);
    if (res.status === 200 || Date.now() > end) return res;
    await res.arrayBuffer();
    await new Promise((r) => setImmediate(r));
  }
}

t.test('healthz is live at once; readyz is 200 once start-up checks are done and the store answers', async (t) => {
  const records: LogRecord[] = [];
  const server = await appServer(t, NOTES, { log: (r) => records.push(r) });
  t.equal((await fetch(server.at('/healthz'))).status, 200);
  const ready = await until200(server.at('/readyz'));
  t.equal(ready.status, 200);
  t.same(await ready.json(), { status: 'ready' });
  t.ok(records.some((r) => /serves notes/.test(r.msg)), 'the start-up summary names the served collections');
  t.equal((await fetch(server.at('/readyz'), { method: 'POST' })).status, 405);
});

t.test('readyz is 503 not-ready with Retry-After while the store cannot be reached', async (t) => {
  const server = await appServer(t, NOTES);
  await until200(server.at('/readyz'));
  await server.apps.close(); // the store is closed under the running server
  const res = await fetch(server.at('/readyz'));
  t.equal(res.status, 503);
  t.equal(res.headers.get('retry-after'), '1');
  t.match(await res.json(), { code: 'not-ready', detail: /store/ });
});

t.test('X-Request-Id: a plain one is echoed, a hostile one replaced; problems carry it', async (t) => {
  const server = await appServer(t, NOTES);
  const mine = await fetch(server.at('/resources/notes'), { headers: { 'x-request-id': 'abc-123' } });
  t.equal(mine.headers.get('x-request-id'), 'abc-123');
  const hostile = await fetch(server.at('/resources/notes'), { headers: { 'x-request-id': 'a b\t<script>' } });
  t.match(hostile.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
  const missing = await fetch(server.at('/resources/notes/999'), { headers: { 'x-request-id': 'find-me' } });
  t.equal(missing.status, 404);
  t.match(await missing.json(), { code: 'member-not-found', requestId: 'find-me' });
});

t.test('one JSON log record per request, with the fields an operator filters on', async (t) => {
  const lines: string[] = [];
  const server = await appServer(t, NOTES, { log: (r) => lines.push(jsonLine(r)) });
  const res = await send(server.at('/resources/notes'), 'POST', { text: 'hello' }, { 'x-request-id': 'log-me' });
  t.equal(res.status, 201);
  await res.arrayBuffer();
  // The record is written when the response is complete, which the client may see first.
  const found = async () => {
    for (;;) {
      const line = lines.find((l) => l.includes('"requestId":"log-me"') && l.includes('"status"'));
      if (line) return JSON.parse(line);
      await new Promise((r) => setImmediate(r));
    }
  };
  const record = await found();
  t.match(record, {
    level: 'info',
    requestId: 'log-me',
    tenant: '',
    collection: 'notes',
    event: 'create',
    method: 'POST',
    path: '/resources/notes',
    status: 201,
    bytesIn: 16,
    bytesOut: Number,
    durationMs: Number,
    handlerCpuMs: 0,
  });
  t.match(record.time, /^\d{4}-\d\d-\d\dT/);
});

t.test('--log-level decides whether the request log is written: info writes a line per request, warn none', async (t) => {
  const data = makeApp({});
  t.teardown(() => data.cleanup());
  const serve = async (level: string, id: string) => {
    const server = await spawnServer(['--app', EXAMPLE_APP, '--store', `sqlite:${data.dir}/svc-${level}.sqlite`, '--log-format', 'json', '--log-level', level]);
    t.teardown(() => void server.child.kill('SIGKILL'));
    const res = await send(`${server.url}/resources/departments`, 'POST', { name: 'd' }, { 'x-request-id': id });
    t.equal(res.status, 201);
    await res.arrayBuffer();
    // Its log lines are all written once it has exited (a pending line is flushed on exit).
    server.child.kill('SIGTERM');
    t.equal(await server.exited, 0);
    await server.closed;
    return server.output();
  };
  const info = await serve('info', 'at-info');
  t.match(info, /"level":"info","msg":"POST \/resources\/departments 201 [\d.]+ ms","requestId":"at-info"/);
  const warn = await serve('warn', 'at-warn');
  t.notMatch(warn, /"requestId":"at-warn"[^\n]*"status":201/, 'no request record at warn');
  t.notMatch(warn, /"level":"info"/);
});

t.test('metrics count requests by tenant and status in the Prometheus format', async (t) => {
  const server = await appServer(t, NOTES);
  await (await fetch(server.at('/resources/notes'))).arrayBuffer();
  await (await fetch(server.at('/resources/notes/77'))).arrayBuffer();
  const res = await fetch(server.at('/metrics'));
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  t.match(text, /svc_requests_total\{tenant="app",status="200"\} [1-9]/);
  t.match(text, /svc_requests_total\{tenant="app",status="404"\} 1/);
  t.match(text, /svc_request_duration_seconds_bucket\{le="0\.001",tenant="app"\}/);
  t.match(text, /^svc_isolates \d+$/m);
});

t.test('an app with as many requests in progress as allowed gets 503 tenant-busy with Retry-After', async (t) => {
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  let leave!: () => void;
  const held = new Promise<void>((r) => (leave = r));
  const holding: HandlerRuntime = {
    async serve(ex) {
      entered();
      await held;
      ex.res.end('done');
    },
    async check() {
      return undefined;
    },
    isolates: () => 0,
    events: async () => undefined,
    async close() {},
  };
  const server = await appServer(t, NOTES, { tenantConcurrency: 1, runtime: () => holding });
  const first = fetch(server.at('/resources/notes'));
  await inside;
  const second = await fetch(server.at('/resources/notes'));
  t.equal(second.status, 503);
  t.equal(second.headers.get('retry-after'), '1');
  t.match(await second.json(), { code: 'tenant-busy' });
  t.equal((await fetch(server.at('/healthz'))).status, 200, 'the operator endpoints are not counted');
  leave();
  t.equal(await (await first).text(), 'done');
  const third = await fetch(server.at('/resources/notes'));
  t.equal(await third.text(), 'done', 'the slot is free again');
});

t.test('--workers 2: ids stay unique, a killed worker is replaced, SIGTERM drains and exits 0', async (t) => {
  const data = makeApp({});
  t.teardown(() => data.cleanup());
  const server = await spawnServer(['--app', EXAMPLE_APP, '--store', `sqlite:${data.dir}/svc.sqlite`, '--workers', '2']);
  t.teardown(() => void server.child.kill('SIGKILL'));
  await until200(`${server.url}/readyz`);
  const created = await Promise.all(
    Array.from({ length: 40 }, async (_, i) => {
      const res = await send(`${server.url}/resources/departments`, 'POST', { name: `d${i}` });
      return ((await res.json()) as { id: number }).id;
    }),
  );
  t.same([...created].sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1), 'ids 1–40, each once, from two processes');

  const children = readFileSync(`/proc/${server.child.pid}/task/${server.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  t.equal(children.length, 2, 'two worker processes');
  process.kill(children[0]!, 'SIGKILL');
  await server.waitFor(new RegExp(`worker ${children[0]} exited \\(signal SIGKILL\\); starting another`));
  const metrics = await until200(`${server.url}/metrics`);
  t.match(await metrics.text(), /svc_requests_total\{tenant="app",status="201"\} \d+/, 'metrics add up over the workers');
  const after = await send(`${server.url}/resources/departments`, 'POST', { name: 'after' });
  t.equal(((await after.json()) as { id: number }).id, 41);

  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});
