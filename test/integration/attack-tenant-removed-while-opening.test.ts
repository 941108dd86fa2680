// A tenant directory removed while the tenant's first request is opening it: the request found
// the directory, and the app was then made from a directory that was gone. That was a raw ENOENT
// (500 internal-error, the log naming the server's path), where README "Tenants" says a removed
// directory stops being served: the request is told the tenant is not found (404), as the next
// one is.

import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { getWithHost } from '../helpers/raw-http.ts';
import { tenantsServer } from '../helpers/server.ts';

t.test('a tenant removed while it opens is tenant-not-found, not an internal error', async (t) => {
  const s = await tenantsServer(t, ['acme', 'beta'], {
    models: { notes: { fields: { text: { type: 'string' } } } },
    resources: { 'notes.ts': 'svc.delegate();\n' },
  });
  // resolve() finds the directory now and opens the app afterwards (its store first).
  const opening = s.apps.resolve('acme.localhost');
  rmSync(join(s.tenants, 'acme'), { recursive: true, force: true });
  const outcome = await opening.then(
    (app) => ({ app }),
    (err: unknown) => ({ err: err as { code?: string; status?: number; message?: string } }),
  );
  if ('app' in outcome) {
    t.equal(outcome.app, undefined, 'no app is served for it');
  } else {
    t.equal(outcome.err.code, 'tenant-not-found', `the request is told the tenant is gone (${outcome.err.message})`);
    t.equal(outcome.err.status, 404);
  }
  t.equal((await getWithHost(s.port, 'acme.localhost', '/resources/notes')).status, 404, 'the next request is 404');
  t.equal((await getWithHost(s.port, 'beta.localhost', '/resources/notes')).status, 200, 'the other tenant is served');
});
