// Times in milliseconds that Node's timers cannot hold. A setTimeout of more than 2^31 − 1 ms
// (24.8 days) is run after 1 ms instead, with a TimeoutOverflowWarning (Node's timers docs), so
// such a value of --tenant-idle or --request-timeout meant "almost never" and acted as "at once":
//   --tenant-idle 2592000000 (30 days): each idle tenant's timer fired every millisecond and
//     re-armed itself, a busy loop that wrote a TimeoutOverflowWarning to standard error each time;
//   --request-timeout 2592000000: a response the client did not take within 1 ms was cut.
// They are refused at start, like every other value svc cannot honour, naming the flag.

import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import { parseConfig } from '../../src/cli.ts';
import { NODE, NODE_FLAGS } from '../helpers/process.ts';
import { makeApp, ROOT } from '../helpers/server.ts';

const THIRTY_DAYS_MS = String(30 * 24 * 3600 * 1000);

const tenants = makeApp({
  files: {
    'acme/models/notes.json': JSON.stringify({ fields: { text: { type: 'string' } } }),
    'acme/resources/notes.ts': 'svc.delegate();\n',
  },
});
t.teardown(() => tenants.cleanup());

/** A GET of acme's notes; resolves with the status once the response is read. */
function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/resources/notes`, { headers: { host: 'acme.localhost' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('--tenant-idle past what a timer holds (30 days) is refused, not turned into a 1 ms busy loop', async (t) => {
  const child = spawn(NODE, [...NODE_FLAGS, join(ROOT, 'src/cli.ts'), 'serve', '--port', '0', '--tenants', tenants.dir, '--store', 'sqlite::memory:', '--tenant-idle', THIRTY_DAYS_MS], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  let evidence: string | undefined;
  const exited = new Promise<number | string | null>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  const onData = (d: Buffer) => {
    const before = out;
    out += d;
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    // Accepted: one request makes the tenant idle, and its idle timer shows what it does.
    if (url !== undefined && !/listening on/.test(before)) void get(url).catch(() => {});
    const warnings = out.match(/TimeoutOverflowWarning/g)?.length ?? 0;
    if (evidence === undefined && warnings >= 20) {
      evidence = `accepted: after one request, ${warnings} TimeoutOverflowWarnings and counting (the idle timer re-armed every 1 ms)`;
      child.kill('SIGTERM');
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const code = await exited;
  t.equal(code, 2, evidence ?? out);
  t.match(out, /^svc: --tenant-idle must be at most 2147483647 \(ms\), not "2592000000"/m);
});

t.test('every time in ms is bounded by what a timer holds, from a flag or its variable', async (t) => {
  t.throws(() => parseConfig(['serve', '--request-timeout', THIRTY_DAYS_MS], {}), /^--request-timeout must be at most 2147483647 \(ms\), not "2592000000"/);
  t.throws(() => parseConfig(['serve'], { SVC_REQUEST_TIMEOUT: '2147483648' }), /^SVC_REQUEST_TIMEOUT must be at most 2147483647/);
  t.throws(() => parseConfig(['serve'], { SVC_TENANT_IDLE: THIRTY_DAYS_MS }), /^SVC_TENANT_IDLE must be at most 2147483647/);
  t.equal(parseConfig(['serve', '--tenant-idle', '2147483647'], {}).config.tenantIdleMs, 2147483647, 'the largest a timer holds');
  t.equal(parseConfig(['serve', '--request-timeout', '2147483647'], {}).config.limits.requestTimeoutMs, 2147483647);
  t.equal(parseConfig(['serve', '--tenant-idle', '0'], {}).config.tenantIdleMs, 0, '0 still keeps tenants open');
});
