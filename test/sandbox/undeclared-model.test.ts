// Attack: reading a model the app does not declare (another collection name, a path, another tenant's model).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startServer } from '../helpers/server.ts';
import { PEOPLE } from './harness.ts';

// Two tenants: "acme" may use its own models only; "beta" holds a model named "secrets".
const root = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
const write = (rel: string, content: string) => {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), content);
};
write('acme/models/probe.json', JSON.stringify(PEOPLE));
write(
  'acme/resources/probe.ts',
  `export function onList() {
    const name = String(zget('/request/params/model'));
    zdelete('/request/params/model');
    try {
      const c = svc.collection(name);
      zput('/request/json/output', { read: c.list() });
    } catch (e) {
      zput('/request/json/output', { error: (e as Error).name + ': ' + (e as Error).message });
    }
    render();
  }`,
);
write('beta/models/secrets.json', JSON.stringify(PEOPLE));
write('beta/resources/secrets.ts', 'svc.delegate();\n');

const server = await startServer({
  tenantsDir: root,
  log: () => {},
});
t.teardown(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

/** A request to a tenant (fetch cannot set Host). */
function call(tenant: string, method: string, path: string, payload?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const headers = { host: `${tenant}.localhost:${server.port}`, 'content-type': 'application/json' };
    const req = request({ host: '127.0.0.1', port: server.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(payload === undefined ? undefined : JSON.stringify(payload));
  });
}

async function probe(model: string): Promise<any> {
  return (await call('acme', 'GET', `/resources/probe?model=${encodeURIComponent(model)}`)).json;
}

t.test('a model the app does not declare: an Error inside the handler', async (t) => {
  t.same(await probe('nothere'), { error: 'Error: svc.collection("nothere"): this app declares no model "nothere"' });
});

t.test("another tenant's model is not reachable by name", async (t) => {
  // Beta has data in "secrets"; acme asking for "secrets" finds no such model of its own.
  const created = await call('beta', 'POST', '/resources/secrets', { name: 'classified' });
  t.equal(created.status, 201);
  t.match(await probe('secrets'), { error: /declares no model "secrets"/ });
});

t.test('paths and odd names are not model names', async (t) => {
  for (const name of ['../beta/models/secrets', '../../beta', 'probe/../secrets', '', '__proto__', 'constructor', 'types']) {
    t.match(await probe(name), { error: /^Error: svc\.collection\(.*\): this app declares no model/ }, JSON.stringify(name));
  }
});

t.test('the app\'s own model works', async (t) => {
  t.same(await probe('probe'), { read: [] });
});
