// A handler that chooses 204 No Content and then renders a view: the body is dropped (204 has
// none), and so must be its length. RFC 9110 §8.6: "A server MUST NOT send a Content-Length header
// field in any response with a status code of 1xx (Informational) or 204 (No Content)". The JSON
// and error views went out as `204` with `Content-Length: <bytes of the dropped body>`.

import { request } from 'node:http';
import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { nc: PEOPLE },
  resources: {
    'nc.ts': `
      export function onList() {
        const how = zget('/request/params/how');
        zdelete('/request/params/how');
        zput('/request/status', 204);
        if (how === 'json') {
          zput('/request/json/output', { deleted: 3 });
          render();
        } else if (how === 'error') {
          zput('/request/view', 'error');
          zput('/request/error/message', 'nothing to say');
          render();
        } else {
          echo('dropped');
        }
      }`,
  },
});
t.teardown(() => s.close());

/** Status, raw header lines and body of a GET, read with node:http (which keeps every header the server sent). */
function get(path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(s.at(path), (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

for (const how of ['json', 'error', 'echo']) {
  t.test(`status 204, then ${how}: no body and no Content-Length`, async (t) => {
    const res = await get(`/resources/nc?how=${how}`);
    t.equal(res.status, 204);
    t.equal(res.body, '');
    t.equal(res.headers['content-length'], undefined, 'a 204 carries no Content-Length (RFC 9110 §8.6)');
    t.equal(res.headers['content-type'], undefined, 'nor a Content-Type');
  });
}
