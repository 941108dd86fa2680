// Unsetting an unknown key under /request/, /event/ or /app/ (zput with undefined, zdelete) did
// nothing and said nothing; README "Context keys": writing an unknown key there throws a TypeError.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { keys: PEOPLE, uncaught: PEOPLE },
    resources: {
      'keys.ts': `
        const out: Record<string, unknown> = {};
        const attempt = (name: string, f: () => unknown) => {
          try {
            out[name] = f() ?? null;
          } catch (e) {
            out[name] = String(e);
          }
        };
        // Unknown keys.
        attempt('zput /request/foo', () => zput('/request/foo', undefined));
        attempt('zput /event/foo', () => zput('/event/foo', undefined));
        attempt('zput /app/foo', () => zput('/app/foo', undefined));
        attempt('zdelete /request/foo', () => zdelete('/request/foo'));
        attempt('zdelete /event/resource/foo', () => zdelete('/event/resource/foo'));
        attempt('svc.delete /app/foo', () => svc.delete('/app/foo'));
        attempt('zdelete /request/params/', () => zdelete('/request/params/'));
        // Read-only keys, named for the call that was made.
        attempt('zput /request/method', () => zput('/request/method', undefined));
        attempt('zdelete /app/env/X', () => zdelete('/app/env/X'));
        // Keys that exist are unset as before.
        attempt('zdelete /request/params/q', () => zdelete('/request/params/q'));
        attempt('zput /request/headers/out/x-a', () => zput('/request/headers/out/x-a', undefined));
        attempt('zdelete /request/status', () => zdelete('/request/status'));
        attempt('zdelete /mine', () => zdelete('/mine'));
        attempt('zput /mine', () => zput('/mine', undefined));
        zput('/request/json/output', out);
        render();`,
      'uncaught.ts': "zdelete('/request/nothing');\necho('not reached');",
    },
  },
  { dev: true },
);
t.teardown(() => s.close());

const unknown = (call: string, key: string) =>
  `TypeError: ${call}("${key}"): there is no context key ${key} (keys of your own must not start with /request/, /event/ or /app/)`;

t.test('each unset of an unknown key throws a TypeError naming the call and the key', async (t) => {
  const res = await fetch(s.at('/resources/keys?q=1'));
  t.equal(res.status, 200);
  t.same(await body(res), {
    'zput /request/foo': unknown('zput', '/request/foo'),
    'zput /event/foo': unknown('zput', '/event/foo'),
    'zput /app/foo': unknown('zput', '/app/foo'),
    'zdelete /request/foo': unknown('zdelete', '/request/foo'),
    'zdelete /event/resource/foo': unknown('zdelete', '/event/resource/foo'),
    'svc.delete /app/foo': unknown('zdelete', '/app/foo'),
    'zdelete /request/params/': 'TypeError: zdelete("/request/params/"): name the parameter after /request/params/',
    'zput /request/method': 'TypeError: zput("/request/method"): /request/method is read-only',
    'zdelete /app/env/X': 'TypeError: zdelete("/app/env/X"): /app/env/X is read-only',
    'zdelete /request/params/q': true,
    'zput /request/headers/out/x-a': null,
    'zdelete /request/status': false,
    'zdelete /mine': false,
    'zput /mine': null,
  });
});

t.test('uncaught, it is the handler\'s error: 500 handler-error', async (t) => {
  const res = await fetch(s.at('/resources/uncaught'));
  t.equal(res.status, 500);
  t.match(await body(res), { code: 'handler-error', detail: unknown('zdelete', '/request/nothing') });
});
