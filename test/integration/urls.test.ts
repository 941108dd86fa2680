// The URL convention (SPEC §4), type metadata (§3), enabling by handler file and hot reload of models.

import t from 'tap';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appServer, send } from '../helpers/server.ts';

const server = await appServer(t, {
  models: {
    employees: {
      fields: {
        name: { type: 'string', required: true, max_length: 50 },
        birthday: { type: 'date' },
        active: { type: 'boolean' },
      },
    },
    hidden: { fields: { name: { type: 'string' } } },
    'a-b_c': { fields: { n: { type: 'integer' } } },
    broken: '{ "fields": { "x": { "type": "strnig" } } }',
  },
  resources: { 'employees.ts': 'svc.delegate();\n', 'a-b_c.js': 'svc.delegate();\n', 'broken.ts': 'svc.delegate();\n' },
});

t.test('type metadata record exactly as specified', async (t) => {
  const res = await fetch(server.at('/resources/types/employees'));
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.same(await res.json() as any, {
    type: 'employees',
    fields: {
      id: { type: 'auto', required: false, editable: true, primary_key: true },
      updated: { type: 'date-time', required: false, editable: true, primary_key: false },
      name: { type: 'string', required: true, editable: true, primary_key: false, max_length: 50 },
      birthday: { type: 'date', required: false, editable: true, primary_key: false },
      active: { type: 'boolean', required: false, editable: true, primary_key: false },
    },
  });
});

t.test('GET /resources/types lists every valid model, ordered by name, even without a handler', async (t) => {
  const res = await fetch(server.at('/resources/types'));
  t.equal(res.status, 200);
  const types = await res.json() as any;
  t.same(types.map((x: { type: string }) => x.type), ['a-b_c', 'employees', 'hidden']);
  t.equal((await fetch(server.at('/resources/types/nope'))).status, 404);
  t.equal((await (await fetch(server.at('/resources/types/nope'))).json() as any).code, 'type-not-found');
  t.equal((await fetch(server.at('/resources/types'), { headers: { accept: 'application/atom+xml' } })).headers.get('content-type')?.startsWith('application/json'), true, 'type metadata is always JSON');
  t.equal((await send(server.at('/resources/types'), 'POST', {})).status, 405);
});

t.test('a bad model file is reported and the others keep serving', async (t) => {
  const res = await fetch(server.at('/resources/broken'));
  t.equal(res.status, 500);
  const problem = await res.json() as any;
  t.equal(problem.code, 'model-invalid');
  t.match(problem.detail, /models\/broken\.json/);
  t.match(problem.detail, /unknown type "strnig"/);
  t.equal((await fetch(server.at('/resources/employees'))).status, 200);
});

t.test('a model without a handler script is not served', async (t) => {
  const res = await fetch(server.at('/resources/hidden'));
  t.equal(res.status, 404);
  t.equal((await res.json() as any).code, 'collection-not-found');
  server.write('resources/hidden.js', 'svc.delegate();\n');
  t.equal((await fetch(server.at('/resources/hidden'))).status, 200, 'served as soon as the script exists');
  rmSync(join(server.dir, 'resources/hidden.js'));
  t.equal((await fetch(server.at('/resources/hidden'))).status, 404, 'and off again when it is removed');
});

t.test('trailing slashes are 404 and never redirected', async (t) => {
  for (const path of ['/resources/employees/', '/resources/employees/1/', '/resources/types/', '/resources/', '/resources', '/resources//1']) {
    const res = await fetch(server.at(path), { redirect: 'manual' });
    t.equal(res.status, 404, path);
    t.equal(res.headers.get('location'), null);
  }
});

t.test('collection names: dots, encoded slashes and other characters are 404', async (t) => {
  for (const path of ['/resources/employees.json', '/resources/employees%2F1', '/resources/..%2Fetc', '/resources/_x', '/resources/1abc', '/resources/%65mployees']) {
    t.equal((await fetch(server.at(path))).status, 404, path);
  }
  t.equal((await fetch(server.at('/resources/a-b_c'))).status, 200, 'hyphen and underscore are fine');
});

t.test('every other path is 404; /healthz is 200', async (t) => {
  t.equal((await fetch(server.at('/'))).status, 404);
  t.equal((await fetch(server.at('/employees'))).status, 404);
  const health = await fetch(server.at('/healthz'));
  t.equal(health.status, 200);
  t.same(await health.json() as any, { status: 'ok' });
});

t.test('unknown methods are 405 with Allow: the methods that URL serves', async (t) => {
  const res = await fetch(server.at('/resources/employees'), { method: 'PATCH' });
  t.equal(res.status, 405);
  // RFC 9110 §10.2.1: what the target supports. The one-line svc.delegate() serves no PUT or
  // DELETE on a collection, nor POST on a member: they are 405 themselves, and not listed.
  t.equal(res.headers.get('allow'), 'GET, POST, HEAD');
  t.equal((await res.json() as any).code, 'method-not-allowed');
  const member = await fetch(server.at('/resources/employees/1'), { method: 'PATCH' });
  t.equal(member.status, 405);
  t.equal(member.headers.get('allow'), 'GET, PUT, DELETE, HEAD');
  const options = await fetch(server.at('/resources/employees/1'), { method: 'OPTIONS' });
  t.equal(options.status, 405);
  t.equal(options.headers.get('allow'), 'GET, PUT, DELETE, HEAD');
  // Each method listed is served there.
  for (const [path, allow] of [['/resources/employees', res.headers.get('allow')!], ['/resources/employees/1', member.headers.get('allow')!]] as const) {
    for (const m of allow.split(', ').filter((m) => m !== 'HEAD')) {
      const r = await fetch(server.at(path), { method: m, ...(m === 'GET' || m === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' }) });
      t.not(r.status, 405, `${m} ${path}`);
    }
  }
  t.equal((await fetch(server.at('/resources/nothing'), { method: 'PATCH' })).status, 404, 'no collection there: nothing to allow');
});

t.test('a hostile Host header is refused, not echoed into URLs', async (t) => {
  const { request } = await import('node:http');
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(server.at('/resources/employees'), { method: 'POST', headers: { host: 'evil.com"><x', 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end('{"name":"x"}');
  });
  t.equal(status, 400);
});

t.test('model changes take effect on the next request', async (t) => {
  const file = join(server.dir, 'models/employees.json');
  const original = JSON.stringify({ fields: { name: { type: 'string', required: true, max_length: 50 }, birthday: { type: 'date' }, active: { type: 'boolean' } } });
  writeFileSync(file, JSON.stringify({ fields: { name: { type: 'string', required: true, max_length: 50 }, birthday: { type: 'date' }, active: { type: 'boolean' }, team: { type: 'string' } } }));
  const created = await send(server.at('/resources/employees'), 'POST', { name: 'Zed', team: 'core' });
  t.equal(created.status, 201, 'the new field is accepted');
  t.equal((await created.json() as any).team, 'core');
  const meta = await (await fetch(server.at('/resources/types/employees'))).json() as any;
  t.ok(meta.fields.team);
  writeFileSync(file, '{ not json');
  const bad = await fetch(server.at('/resources/employees'));
  t.equal(bad.status, 500);
  t.match((await bad.json() as any).detail, /not valid JSON/);
  writeFileSync(file, original);
  const back = await fetch(server.at('/resources/employees'));
  t.equal(back.status, 200);
  t.notOk((await back.json() as any).some((m: Record<string, unknown>) => 'team' in m), 'removed fields are not returned');
});
