// Hot reload: changed or added handler, imported and model files take effect on the next request; in-flight requests finish on the old code.

import t from 'tap';
import { request } from 'node:http';
import { send } from '../helpers/server.ts';
import { GATE_HANDLER, GATE_MODEL, GATE_LIMITS, openGate, WAIT_FOR_GATE } from './gate.ts';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { hot: PEOPLE, later: PEOPLE, lib: PEOPLE, slow: PEOPLE, grows: PEOPLE, gate: GATE_MODEL },
    resources: {
      'hot.ts': "export function onList() { echo('v1'); }\n",
      'lib.ts': "import { word } from './shared/word.ts';\nexport function onList() { echo(word()); }\n",
      'gate.ts': GATE_HANDLER,
      // Writes, then waits until the test has changed the file and opened the gate.
      'slow.ts': `${WAIT_FOR_GATE}export function onList() {\n  echo('old ');\n  waitForGate();\n  echo('code');\n}\n`,
      'grows.ts': "export function onCreate() {\n  echo(JSON.stringify(svc.collection('grows').create({ name: 'x', extra: 'y' })));\n}\n",
    },
    files: { 'resources/shared/word.ts': "export const word = () => 'first';\n" },
  },
  { dev: true, limits: { cpuLimitMs: 2000, ...GATE_LIMITS } },
);
t.teardown(() => s.close());

const text = async (path: string) => (await fetch(s.at(path))).text();

t.test('a changed handler serves the next request, without a restart', async (t) => {
  t.equal(await text('/resources/hot'), 'v1');
  s.write('resources/hot.ts', "export function onList() { echo('v2, longer'); }\n");
  const t0 = performance.now();
  t.equal(await text('/resources/hot'), 'v2, longer');
  const ms = performance.now() - t0;
  t.comment(`first request after the change (compile + run): ${ms.toFixed(1)} ms`);
  // A compile takes tens of milliseconds; the bound leaves room for a loaded machine and still
  // fails if a change were picked up by restarting the app or waiting for a watcher.
  t.ok(ms < 5000, 'promptly');
  s.write('resources/hot.ts', "export function onList() { echo('v3'); }\n");
  t.equal(await text('/resources/hot'), 'v3');
});

t.test('a handler added to a model makes the collection appear', async (t) => {
  t.equal((await fetch(s.at('/resources/later'))).status, 404);
  s.write('resources/later.ts', "export function onList() { echo('now here'); }\n");
  t.equal(await text('/resources/later'), 'now here');
});

t.test('a changed imported file takes effect too', async (t) => {
  t.equal(await text('/resources/lib'), 'first');
  s.write('resources/shared/word.ts', "export const word = () => 'second';\n");
  t.equal(await text('/resources/lib'), 'second');
});

t.test('a compile error serves 500 until the file is fixed', async (t) => {
  s.write('resources/hot.ts', 'export function onList() {\n  echo(;\n}\n');
  const broken = await fetch(s.at('/resources/hot'));
  t.equal(broken.status, 500);
  t.match(await body(broken), { code: 'handler-compile-error', detail: /^resources\/hot\.ts:2:\d+: Unexpected/ });
  s.write('resources/hot.ts', "export function onList() { echo('fixed'); }\n");
  t.equal(await text('/resources/hot'), 'fixed');
});

t.test('a request in flight finishes on the code it started with', async (t) => {
  // The old code has written its first words and waits at the gate while the file changes.
  let started!: (text: string) => void;
  const firstWords = new Promise<string>((resolve) => (started = resolve));
  const inFlight = new Promise<string>((resolve, reject) => {
    let text = '';
    request(s.at('/resources/slow'), (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (text === '') started(chunk);
        text += chunk;
      });
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
  t.equal(await firstWords, 'old ');
  s.write('resources/slow.ts', "export function onList() { echo('new code'); }\n");
  t.equal(await text('/resources/slow'), 'new code', 'a request after the change runs the new code');
  await openGate(s.at);
  t.equal(await inFlight, 'old code', 'the one in flight ran the old code to its end');
});

t.test('a changed model file takes effect for the model API on the next request', async (t) => {
  const before = await send(s.at('/resources/grows'), 'POST', {});
  t.equal(before.status, 500);
  t.match(await body(before), { detail: /extra/ });
  s.write('models/grows.json', JSON.stringify({ fields: { ...PEOPLE.fields, extra: { type: 'string' } } }));
  const after = await send(s.at('/resources/grows'), 'POST', {});
  t.equal(after.status, 200);
  t.match(await body(after), { name: 'x', extra: 'y' });
});
