// Attack: a model file that is a symlink out of the app (to /etc/passwd, or to another tenant's
// model) must not be read: no file content in a problem, no other tenant's model served.

import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import t from 'tap';
import { makeApp, startServer } from '../helpers/server.ts';

const root = makeApp({});
t.teardown(() => root.cleanup());
for (const tenant of ['alpha', 'beta']) {
  mkdirSync(join(root.dir, tenant, 'models'), { recursive: true });
  mkdirSync(join(root.dir, tenant, 'resources'), { recursive: true });
}
writeFileSync(join(root.dir, 'beta/models/secret.json'), JSON.stringify({ fields: { beta_only_field: { type: 'string', description: 'beta internal' } } }));
writeFileSync(join(root.dir, 'beta/resources/secret.ts'), 'svc.delegate();\n');
symlinkSync('/etc/passwd', join(root.dir, 'alpha/models/leak.json'));
writeFileSync(join(root.dir, 'alpha/resources/leak.ts'), 'svc.delegate();\n');
symlinkSync(join(root.dir, 'beta/models/secret.json'), join(root.dir, 'alpha/models/secret.json'));
writeFileSync(join(root.dir, 'alpha/resources/secret.ts'), 'svc.delegate();\n');
// A file of the app that is not JSON at all: the problem says where, not what.
writeFileSync(join(root.dir, 'alpha/models/broken.json'), 'root:x:0:0:root:/root:/bin/bash\n');
writeFileSync(join(root.dir, 'alpha/resources/broken.ts'), 'svc.delegate();\n');

const server = await startServer({ tenantsDir: root.dir });
t.teardown(() => server.close());

function get(tenant: string, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, headers: { host: `${tenant}.localhost` } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('a model linked to /etc/passwd is refused without a byte of it in the answer', async (t) => {
  const res = await get('alpha', '/resources/leak');
  t.equal(res.status, 500);
  t.match(JSON.parse(res.text), { code: 'model-invalid', detail: /link to a file outside the app/ });
  t.notMatch(res.text, /root|bin\/bash/);
});

t.test("a model linked to another tenant's model is not served", async (t) => {
  const types = await get('alpha', '/resources/types/secret');
  t.notMatch(types.text, /beta_only_field|beta internal/);
  const res = await get('alpha', '/resources/secret');
  t.equal(res.status, 500);
  t.notMatch(res.text, /beta_only_field/);
  t.equal((await get('beta', '/resources/secret')).status, 200, 'beta itself is served');
});

t.test('a model file that is not JSON: the problem says where, never the content', async (t) => {
  const res = await get('alpha', '/resources/broken');
  t.equal(res.status, 500);
  t.match(JSON.parse(res.text), { code: 'model-invalid', detail: /not valid JSON/ });
  t.notMatch(res.text, /root:x|bin\/bash/);
});
