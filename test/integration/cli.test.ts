// The command line (SPEC §2): flags, environment variables and `svc check`.

import t from 'tap';
import { parseConfig } from '../../src/cli.ts';
import { DEFAULT_LIMITS } from '../../src/config.ts';
import { runSvc } from '../helpers/process.ts';
import { EXAMPLE_APP, makeApp } from '../helpers/server.ts';

const svc = (...args: string[]) => runSvc(args);

t.test('defaults, flags and environment variables', async (t) => {
  const d = parseConfig(['serve'], {});
  t.same(d.config, {
    app: './app',
    port: 8080,
    host: '127.0.0.1',
    store: 'sqlite:./data/svc.sqlite',
    dev: false,
    waitForStore: false,
    workers: 1,
    tenantConcurrency: 64,
    maxRssMiB: 2048,
    tenantIdleMs: 300_000,
    logFormat: 'text',
    logLevel: 'info',
    limits: DEFAULT_LIMITS,
  });
  t.match(parseConfig(['serve', '--workers', '3', '--store', 'sqlite:/x.db', '--tenant-concurrency', '5', '--max-rss', '0', '--log-format', 'json', '--log-level', 'warn'], {}).config, {
    workers: 3,
    tenantConcurrency: 5,
    maxRssMiB: 0,
    logFormat: 'json',
    logLevel: 'warn',
  });
  t.match(parseConfig(['serve', '--store', 'sqlite:/x.db'], { SVC_WORKERS: 'auto' }).config.workers, Number);
  t.equal(parseConfig(['serve'], { SVC_MAX_RSS: '512' }).config.maxRssMiB, 512);
  t.equal(parseConfig(['serve', '--tenant-idle', '0'], { SVC_TENANT_IDLE: '500' }).config.tenantIdleMs, 0, '--tenant-idle 0 keeps tenants open');
  t.equal(parseConfig(['serve'], { SVC_TENANT_IDLE: '500' }).config.tenantIdleMs, 500);
  t.throws(() => parseConfig(['serve', '--tenant-idle', '5m'], {}), /--tenant-idle must be an integer ≥ 0/);
  t.throws(() => parseConfig(['serve', '--workers', '2', '--store', 'sqlite::memory:'], {}), /needs a store the workers share/);
  t.throws(() => parseConfig(['serve', '--log-format', 'xml'], {}), /--log-format must be text or json/);
  t.throws(() => parseConfig(['serve', '--log-level', 'loud'], {}), /--log-level must be one of/);
  const env = parseConfig(['serve'], { SVC_APP: '/a', SVC_TENANTS: '/t', PORT: '9', HOST: '0.0.0.0', SVC_STORE: 'sqlite::memory:', SVC_DEV: '1', SVC_MAX_BODY: '10', SVC_CPU_LIMIT: '50' });
  t.match(env.config, { app: '/a', tenants: '/t', port: 9, host: '0.0.0.0', store: 'sqlite::memory:', dev: true, limits: { maxBodyBytes: 10, cpuLimitMs: 50 } });
  const flags = parseConfig(['serve', '--app', '/b', '--port', '0', '--host', '::1', '--store', 'sqlite:/x.db', '--max-url', '100', '--request-timeout', '5', '--memory-limit', '32', '--max-output', '99', '--dev'], { SVC_APP: '/a', PORT: '9' });
  t.match(flags.config, { app: '/b', port: 0, host: '::1', store: 'sqlite:/x.db', dev: true, limits: { maxUrlBytes: 100, requestTimeoutMs: 5, memoryLimitMiB: 32, maxOutputBytes: 99 } }, 'flags win over env');
  t.match(parseConfig(['serve', '--tenants', '/t', '--public-url', 'https://{tenant}.example.com'], {}).config, { publicUrl: 'https://{tenant}.example.com' });
  t.match(parseConfig(['serve'], { SVC_PUBLIC_URL: 'http://localhost:8080' }).config, { publicUrl: 'http://localhost:8080' });
  t.throws(() => parseConfig(['serve', '--public-url', 'https://api.example.com/v1'], {}), /--public-url must be an origin/);
  t.throws(() => parseConfig(['serve', '--public-url', 'ftp://x'], {}), /--public-url must be an origin/);
  t.throws(() => parseConfig(['serve', '--port', 'eighty'], {}), /--port must be an integer/);
  t.throws(() => parseConfig(['serve', '--max-body', '0'], {}), /--max-body must be an integer ≥ 1/);
  t.throws(() => parseConfig(['serve', '--bogus'], {}));
});

t.test('svc check passes on the example app', async (t) => {
  const { code, out } = await svc('check', '--app', EXAMPLE_APP);
  t.equal(code, 0, out);
  t.match(out, /ok/);
});

t.test('svc check exits non-zero naming file and reason for every bad model', async (t) => {
  const app = makeApp({
    models: {
      good: { fields: { a: { type: 'string' } } },
      bad1: '{ nope',
      bad2: { fields: { x: { type: 'money' } } },
    },
    resources: { 'good.ts': 'svc.delegate();\n' },
  });
  t.teardown(() => app.cleanup());
  const { code, out } = await svc('check', '--app', app.dir);
  t.equal(code, 1);
  t.match(out, /models\/bad1\.json: not valid JSON/);
  t.match(out, /models\/bad2\.json: fields\.x\.type: unknown type "money"/);
  t.notMatch(out, /good\.json/);
  t.match(out, /2 problems/);
});

t.test('svc check reports a handler that does not compile, with file and line', async (t) => {
  const app = makeApp({
    models: { good: { fields: { a: { type: 'string' } } }, other: { fields: { a: { type: 'string' } } } },
    resources: { 'good.ts': 'svc.delegate();\n', 'other.ts': 'export function onList() {\n  svc.delegate(;\n}\n' },
  });
  t.teardown(() => app.cleanup());
  const { code, out } = await svc('check', '--app', app.dir);
  t.equal(code, 1);
  t.match(out, /^resources\/other\.ts:2:\d+: /m);
  t.notMatch(out, /resources\/other\.ts: resources\/other\.ts/, 'the file is named once');
  t.notMatch(out, /good\.ts/);
});

t.test('a bad store URI fails at start-up with a clear message', async (t) => {
  const { code, out } = await svc('serve', '--app', EXAMPLE_APP, '--port', '0', '--store', 'postgres://x');
  t.equal(code, 1);
  t.match(out, /unknown store URI/);
});

t.test('svc check refuses the options of svc serve instead of ignoring them', async (t) => {
  const { code, out } = await svc('check', '--app', EXAMPLE_APP, '--port', '0');
  t.equal(code, 2, out);
  t.match(out, /^svc: --port is an option of svc serve; svc check takes only --app or --tenants, and --types$/m);
  t.notMatch(out, /svc check: .*ok/, 'nothing was checked');
  t.throws(() => parseConfig(['check', '--store', 'mongodb://db/svc', '--dev', '--max-body', '10'], {}), /^--store, --dev, --max-body are options of svc serve; svc check takes only --app or --tenants, and --types$/);
  for (const flag of ['--host=::1', '--public-url=https://a.example', '--cors=*', '--fetch-private=any', '--workers=2', '--wait-for-store', '--log-level=debug', '--cpu-limit=5']) {
    t.throws(() => parseConfig(['check', flag], {}), /options? of svc serve/, flag);
  }
  t.match(parseConfig(['check', '--tenants', '/t', '--types'], {}), { command: 'check', config: { tenants: '/t' }, check: { types: true } });
  t.equal(parseConfig(['check'], { PORT: '9', SVC_STORE: 'sqlite::memory:' }).command, 'check', 'the environment of serve is not refused: a shell or image sets it for serve');
  t.equal(parseConfig(['serve', '--port', '0', '--store', 'sqlite::memory:'], {}).command, 'serve');
});
