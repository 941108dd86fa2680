// With a few connections open, the runs submitted to an isolate in one turn of the event loop are
// handed to its thread together at the end of the turn (isolate-pool.ts `#handOver`), in the order
// submitted, as is the work of compiling a new version of a handler. What a client sees must not
// change: each request answered by its own run of the version it was submitted with, and a run that
// breaks its CPU limit ending only itself and the isolate (the requests queued behind it run again).

import t from 'tap';
import { exchange, hdr, idleConnection, responses } from '../helpers/wire.ts';
import { PEOPLE, sandboxServer } from './harness.ts';

const handler = (version: string) =>
  `export function onCreate() {\n  svc.delegate();\n}\nexport function onRetrieve() {\n  zput('/request/headers/out/x-version', '${version}');\n  svc.delegate();\n}\n`;

const app = await sandboxServer(
  {
    models: { people: PEOPLE, spin: PEOPLE },
    resources: {
      'people.ts': handler('1'),
      'spin.ts': 'export function onList() { for (;;) {} }\n',
    },
  },
  { limits: { cpuLimitMs: 100, maxIsolates: 2 } },
);
t.teardown(() => app.close());
const port = app.server.port;

const ids: number[] = [];
t.before(async () => {
  for (let i = 0; i < 6; i++) {
    const res = await fetch(app.at('/resources/people'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `p${i}` }) });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { id: number }).id);
  }
});

const get = (path: string, id = 'r') => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n`;

/** GETs each path on a connection of its own, all at once: each connection's responses. */
async function all(paths: string[]): Promise<ReturnType<typeof responses>[]> {
  return Promise.all(paths.map(async (p, i) => responses((await exchange(port, [get(p, `r${i}`)], { idleMs: 5000 })).text)));
}

// Three idle connections besides the requests' own: the server batches from three open connections on.
const idle = await Promise.all([0, 1, 2].map(() => idleConnection(port)));
t.teardown(() => {
  for (const s of idle) s.destroy();
});

t.test('requests on many connections at once: each answered by its own run', async (t) => {
  const paths = [...ids, ...ids, ...ids, ...ids].map((id) => `/resources/people/${id}`);
  const got = await all(paths);
  got.forEach((res, i) => {
    t.equal(res.length, 1);
    t.equal(res[0]!.status, 200, `request ${i}`);
    t.equal(hdr(res[0]!.head, 'x-version'), '1', 'the handler ran, then its delegate');
    t.equal((JSON.parse(res[0]!.body) as { id: number }).id, ids[i % ids.length], 'its own member');
  });
});

t.test('a new version of the handler, compiled while requests arrive: each request gets a whole version', async (t) => {
  app.write('resources/people.ts', handler('2'));
  const got = await all(ids.map((id) => `/resources/people/${id}`));
  for (const res of got) {
    t.equal(res[0]!.status, 200);
    t.equal(hdr(res[0]!.head, 'x-version'), '2', 'a request that arrives after the change runs the new version');
  }
});

t.test('a run that breaks its CPU limit among others: only it fails', async (t) => {
  const paths = ['/resources/spin', ...ids.map((id) => `/resources/people/${id}`)];
  const got = await all(paths);
  t.equal(got[0]![0]!.status, 503);
  t.equal((JSON.parse(got[0]![0]!.body) as { code: string }).code, 'handler-cpu-limit');
  for (const res of got.slice(1)) t.equal(res[0]!.status, 200, 'a request beside it is answered');
  // And the app serves on afterwards.
  const after = await all(ids.map((id) => `/resources/people/${id}`));
  for (const res of after) t.equal(res[0]!.status, 200);
});
