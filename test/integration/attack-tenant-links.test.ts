// Attack: a tenant's files that are links into another tenant's directory. A model file linked out
// of the app was refused, but not a `models` directory that is itself a link (to beta's models:
// the check compared each model with the real path of `models/`, which was then beta's), nor a
// `svc.json` linked to beta's, whose `env` (API keys, "no other app can read them") alpha's
// handlers then read as their own. Both are read only when they are files of the app.

import t from 'tap';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { getWithHost } from '../helpers/raw-http.ts';
import { makeApp, startServer } from '../helpers/server.ts';

/** Returns the API key of its app's settings, or null. */
const KEY_HANDLER = "export function onList() {\n  zput('/request/json/output', { key: zget('/app/env/API_KEY') ?? null });\n  render();\n}\n";
const KEY_MODEL = JSON.stringify({ fields: { x: { type: 'string' } } });

const root = makeApp({
  files: {
    'beta/models/secret.json': JSON.stringify({ fields: { beta_only_field: { type: 'string', description: 'beta internal' } } }),
    'beta/models/key.json': KEY_MODEL,
    'beta/resources/secret.ts': 'svc.delegate();\n',
    'beta/resources/key.ts': KEY_HANDLER,
    'beta/svc.json': JSON.stringify({ env: { API_KEY: 'beta-secret-key' } }),
    // alpha: its models directory is beta's.
    'alpha/resources/secret.ts': 'svc.delegate();\n',
    // delta: its svc.json is beta's.
    'delta/models/key.json': KEY_MODEL,
    'delta/resources/key.ts': KEY_HANDLER,
    // gamma: a models directory and a svc.json linked inside its own app are its own files.
    'gamma/shared/models/key.json': KEY_MODEL,
    'gamma/shared/svc.json': JSON.stringify({ env: { API_KEY: 'gamma-key' } }),
    'gamma/resources/key.ts': KEY_HANDLER,
  },
});
t.teardown(() => root.cleanup());
symlinkSync(join(root.dir, 'beta/models'), join(root.dir, 'alpha/models'));
symlinkSync(join(root.dir, 'beta/svc.json'), join(root.dir, 'delta/svc.json'));
symlinkSync('shared/models', join(root.dir, 'gamma/models'));
symlinkSync('shared/svc.json', join(root.dir, 'gamma/svc.json'));

const server = await startServer({ tenantsDir: root.dir });
t.teardown(() => server.close());

t.test("a models directory linked to another tenant's serves none of its models", async (t) => {
  const types = await getWithHost(server.port, 'alpha.localhost', '/resources/types');
  t.notMatch(types.text, /beta_only_field|beta internal/, 'no type of beta is listed');
  const type = await getWithHost(server.port, 'alpha.localhost', '/resources/types/secret');
  t.notMatch(type.text, /beta_only_field|beta internal/);
  const res = await getWithHost(server.port, 'alpha.localhost', '/resources/secret');
  t.equal(res.status, 500);
  t.match(JSON.parse(res.text), { code: 'model-invalid', detail: /outside the app/ });
  t.notMatch(res.text, /beta_only_field/);
  t.equal((await getWithHost(server.port, 'beta.localhost', '/resources/types/secret')).status, 200, "beta's own model is served");
});

t.test("a svc.json linked to another tenant's gives none of its env to the tenant's handlers", async (t) => {
  const res = await getWithHost(server.port, 'delta.localhost', '/resources/key');
  t.notMatch(res.text, /beta-secret-key/);
  t.equal(res.status, 500);
  t.match(JSON.parse(res.text), { code: 'app-settings-invalid', detail: /svc\.json .*outside the app/ });
  const beta = await getWithHost(server.port, 'beta.localhost', '/resources/key');
  t.same(JSON.parse(beta.text), { key: 'beta-secret-key' }, 'beta itself reads its key');
});

t.test('links that stay inside the app are followed', async (t) => {
  const res = await getWithHost(server.port, 'gamma.localhost', '/resources/key');
  t.equal(res.status, 200);
  t.same(JSON.parse(res.text), { key: 'gamma-key' });
});
