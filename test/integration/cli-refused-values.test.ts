// Flag values that would start a server other than the one meant are refused before it starts
// (exit 2, naming the flag): an empty --host, {tenant} in --public-url without tenants, a
// --public-url no client could use (brackets around an IPv4 address, a port past 65535), a
// --fetch-private that is not CIDR blocks, and --workers on a store that lives in each process.
// `svc check`, which takes none of these, judges none of their environment variables: it failed on
// a SVC_FETCH_PRIVATE (or SVC_WORKERS, SVC_CORS, …) set for `svc serve`.

import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { parseConfig } from '../../src/cli.ts';
import { fetchPrivateOf } from '../../src/config.ts';
import { NODE, NODE_FLAGS } from '../helpers/process.ts';
import { EXAMPLE_APP, ROOT } from '../helpers/server.ts';

/**
 * `svc serve --port 0 …args` until it exits: its exit code and output. A server that starts
 * listening instead (the value was accepted) is stopped at once, and `code` is 'listening'.
 */
function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | string | null; out: string }> {
  const child = spawn(NODE, [...NODE_FLAGS, join(ROOT, 'src/cli.ts'), 'serve', '--port', '0', ...args], {
    cwd: ROOT,
    // Were --workers accepted with mongodb-memory, no worker may download a mongod.
    env: { ...process.env, MONGOMS_RUNTIME_DOWNLOAD: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let listening = false;
  const onData = (d: Buffer) => {
    out += d;
    if (!listening && /listening on/.test(out)) {
      listening = true;
      child.kill('SIGTERM');
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code: listening ? 'listening' : (code ?? signal), out })));
}

t.test('SVC_DEV and SVC_WAIT_FOR_STORE: 1 or true is on, unset, empty, 0 or false off, anything else refused naming the variable', async (t) => {
  for (const [variable, key] of [['SVC_DEV', 'dev'], ['SVC_WAIT_FOR_STORE', 'waitForStore']] as const) {
    for (const on of ['1', 'true']) t.equal(parseConfig(['serve'], { [variable]: on }).config[key], true, `${variable}=${on}`);
    for (const off of [undefined, '', '0', 'false']) t.equal(parseConfig(['serve'], { [variable]: off }).config[key], false, `${variable}=${off}`);
    // Read as off before, without a word: an operator who wrote yes thought it on.
    for (const other of ['yes', 'TRUE', 'on', '2']) t.throws(() => parseConfig(['serve'], { [variable]: other }), new RegExp(`^${variable} must be 1, true, 0 or false, not "${other}"$`), `${variable}=${other}`);
  }
  t.equal(parseConfig(['serve', '--dev'], { SVC_DEV: '0' }).config.dev, true, 'the flag wins');
});

t.test('an empty --host is refused: it would listen on every interface', async (t) => {
  const { code, out } = await serve(['--host', '', '--app', EXAMPLE_APP, '--store', 'sqlite::memory:']);
  t.equal(code, 2, out);
  t.match(out, /^svc: --host needs an address, not "": 127\.0\.0\.1 for this machine only, 0\.0\.0\.0 to listen on every interface$/m);
  t.throws(() => parseConfig(['serve', '--host', ''], { HOST: '0.0.0.0' }), /--host needs an address/, 'an empty flag does not fall back to HOST');
  t.equal(parseConfig(['serve'], { HOST: '' }).config.host, '127.0.0.1', 'an empty HOST still counts as unset');
  t.equal(parseConfig(['serve', '--host', '0.0.0.0'], {}).config.host, '0.0.0.0', 'every interface, when asked for');
});

t.test('{tenant} in --public-url needs --tenants', async (t) => {
  const { code, out } = await serve(['--public-url', 'https://{tenant}.example.com', '--app', EXAMPLE_APP, '--store', 'sqlite::memory:']);
  t.equal(code, 2, out);
  t.match(out, /^svc: --public-url https:\/\/\{tenant\}\.example\.com: \{tenant\} stands for the tenant's name, and there are tenants only with --tenants/m);
  t.throws(() => parseConfig(['serve'], { SVC_PUBLIC_URL: 'https://{tenant}.example.com' }), /^SVC_PUBLIC_URL .*--tenants/, 'from the environment too, naming the variable');
  t.match(parseConfig(['serve', '--tenants', '/t', '--public-url', 'https://{tenant}.example.com'], {}).config, { publicUrl: 'https://{tenant}.example.com' });
  t.match(parseConfig(['serve', '--public-url', 'https://{tenant}.example.com'], { SVC_TENANTS: '/t' }).config, { publicUrl: 'https://{tenant}.example.com' });
  t.match(parseConfig(['serve', '--public-url', 'https://api.example.com'], {}).config, { publicUrl: 'https://api.example.com' });
  // A misspelt placeholder would be copied into every Location as it is.
  t.throws(() => parseConfig(['serve', '--tenants', '/t', '--public-url', 'https://{tenants}.example.com'], {}), /--public-url may contain \{tenant\} and no other braces/);
  t.throws(() => parseConfig(['serve', '--tenants', '/t', '--public-url', 'https://{tenant.example.com'], {}), /--public-url may contain \{tenant\} and no other braces/);
});

t.test('--workers needs a store the workers share: not mongodb-memory, whose mongod is per process', async (t) => {
  const { code, out } = await serve(['--workers', '2', '--store', 'mongodb-memory', '--app', EXAMPLE_APP]);
  t.equal(code, 2, out);
  t.match(out, /^svc: --workers 2 needs a store the workers share: mongodb-memory lives in each process/m);
  t.throws(() => parseConfig(['serve'], { SVC_WORKERS: '3', SVC_STORE: 'mongodb-memory' }), /^SVC_WORKERS 3 needs a store the workers share: mongodb-memory/);
  t.throws(() => parseConfig(['serve', '--workers', '2', '--store', 'sqlite::memory:'], {}), /--workers 2 needs a store the workers share: sqlite::memory:/, 'the same check as sqlite::memory:');
  t.equal(parseConfig(['serve', '--store', 'mongodb-memory'], {}).config.workers, 1, 'one process may use it');
  t.equal(parseConfig(['serve', '--workers', '2', '--store', 'mongodb://db/svc'], {}).config.workers, 2);
  t.equal(parseConfig(['serve', '--workers', '2', '--store', 'sqlite:/var/lib/svc/svc.sqlite'], {}).config.workers, 2);
});

t.test('--public-url: brackets around what is not IPv6, and a port past 65535, are refused naming the flag', async (t) => {
  const { code, out } = await serve(['--public-url', 'https://[1.2.3.4]', '--app', EXAMPLE_APP, '--store', 'sqlite::memory:']);
  t.equal(code, 2, out);
  t.match(out, /^svc: --public-url https:\/\/\[1\.2\.3\.4\]: \[1\.2\.3\.4\] is not an IPv6 address; brackets hold IPv6 only/m);
  t.throws(() => parseConfig(['serve', '--public-url', 'https://api.example.com:65536'], {}), /^--public-url https:\/\/api\.example\.com:65536: the port must be at most 65535, not 65536$/);
  t.throws(() => parseConfig(['serve'], { SVC_PUBLIC_URL: 'http://[::1]:99999' }), /^SVC_PUBLIC_URL http:\/\/\[::1\]:99999: the port must be at most 65535/, 'from the environment too, naming the variable');
  t.throws(() => parseConfig(['serve', '--tenants', '/t', '--public-url', 'https://{tenant}.example.com:70000'], {}), /the port must be at most 65535/);
  t.throws(() => parseConfig(['serve', '--public-url', 'https://[::1.2.3.4.5]'], {}), /is not an IPv6 address/);
  t.throws(() => parseConfig(['serve', '--public-url', 'https://1.2.3.999'], {}), /^--public-url https:\/\/1\.2\.3\.999 is not a URL: its host must be a name or an IP address/);
  for (const ok of ['https://[2001:db8::1]', 'http://[::1]:8080', 'https://api.example.com:65535', 'http://192.0.2.1:1']) {
    t.equal(parseConfig(['serve', '--public-url', ok], {}).config.publicUrl, ok, ok);
  }
});

t.test('--fetch-private: none, any or CIDR blocks; anything else is refused naming the flag and the entry', async (t) => {
  const { code, out } = await serve(['--fetch-private', '127.0.0.0/33', '--app', EXAMPLE_APP, '--store', 'sqlite::memory:']);
  t.equal(code, 2, out);
  t.match(out, /^svc: --fetch-private: "127\.0\.0\.0\/33": the prefix of an IPv4 block is at most \/32$/m);
  const refused: [string, RegExp][] = [
    ['localhost', /^--fetch-private: "localhost" is not a CIDR block such as 10\.0\.0\.0\/8 or fd00::\/8/],
    ['10.0.0.0/8,10.0.0/8', /"10\.0\.0\/8" is not a CIDR block/],
    ['300.0.0.0/8', /"300\.0\.0\.0\/8" is not a CIDR block/],
    ['fe80::1%eth0', /"fe80::1%eth0" is not a CIDR block/],
    ['fd00::/129', /the prefix of an IPv6 block is at most \/128/],
    ['10.1.2.3/8', /"10\.1\.2\.3\/8" has address bits past its \/8: write the network, 10\.0\.0\.0\/8, or the one address, 10\.1\.2\.3$/],
    ['fd00::1/8', /write the network, fd00::\/8/],
    ['any,10.0.0.0/8', /none and any stand alone/],
    [',', /--fetch-private takes none, any, or CIDR blocks/],
  ];
  for (const [value, message] of refused) t.throws(() => parseConfig(['serve', '--fetch-private', value], {}), message, value);
  t.throws(() => parseConfig(['serve'], { SVC_FETCH_PRIVATE: 'private' }), /"private" is not a CIDR block/, 'from the environment too');

  const of = (argv: string[], env: NodeJS.ProcessEnv = {}) => fetchPrivateOf(parseConfig(['serve', ...argv], env).config);
  t.equal(of([]), 'any', 'one app: its owner runs the server');
  t.same(of(['--tenants', '/t']), [], 'tenants: none');
  t.equal(of(['--tenants', '/t', '--fetch-private', 'any']), 'any');
  t.same(of(['--fetch-private', 'none']), []);
  t.same(of(['--tenants', '/t'], { SVC_FETCH_PRIVATE: '127.0.0.0/8, 169.254.169.254 ,fd00::/8,::1' }), ['127.0.0.0/8', '169.254.169.254/32', 'fd00::/8', '::1/128']);
  t.same(of(['--tenants', '/t', '--fetch-private', '10.0.0.0/8'], { SVC_FETCH_PRIVATE: 'any' }), ['10.0.0.0/8'], 'the flag wins');
});

t.test('svc check reads no environment variable of svc serve, so one serve would refuse does not fail it', async (t) => {
  // Each variable of a serve option, with a value serve refuses.
  const refused: [NodeJS.ProcessEnv, RegExp][] = [
    [{ PORT: '99999' }, /^PORT must be at most 65535/],
    [{ SVC_PUBLIC_URL: 'https://{tenant}.example.com' }, /^SVC_PUBLIC_URL .*--tenants/],
    [{ SVC_CORS: 'example.com' }, /^SVC_CORS takes origins/],
    [{ SVC_FETCH_PRIVATE: 'private' }, /^SVC_FETCH_PRIVATE: "private" is not a CIDR block/],
    [{ SVC_WORKERS: 'many' }, /^SVC_WORKERS must be an integer/],
    [{ SVC_WORKERS: '2', SVC_STORE: 'sqlite::memory:' }, /^SVC_WORKERS 2 needs a store the workers share/],
    [{ SVC_TENANT_CONCURRENCY: '0' }, /^SVC_TENANT_CONCURRENCY must be an integer ≥ 1/],
    [{ SVC_TENANT_IDLE: '5m' }, /^SVC_TENANT_IDLE must be an integer/],
    [{ SVC_MAX_RSS: '2G' }, /^SVC_MAX_RSS must be an integer/],
    [{ SVC_LOG_FORMAT: 'xml' }, /^SVC_LOG_FORMAT must be text or json/],
    [{ SVC_LOG_LEVEL: 'loud' }, /^SVC_LOG_LEVEL must be one of/],
    [{ SVC_MAX_BODY: '0' }, /^SVC_MAX_BODY must be an integer ≥ 1/],
    [{ SVC_MAX_URL: '1k' }, /^SVC_MAX_URL must be an integer/],
    [{ SVC_REQUEST_TIMEOUT: '0' }, /^SVC_REQUEST_TIMEOUT must be an integer/],
    [{ SVC_CPU_LIMIT: '-1' }, /^SVC_CPU_LIMIT must be an integer/],
    [{ SVC_MEMORY_LIMIT: '0' }, /^SVC_MEMORY_LIMIT must be an integer/],
    [{ SVC_MAX_OUTPUT: '0' }, /^SVC_MAX_OUTPUT must be an integer/],
    [{ SVC_STORE_LIMIT: '0' }, /^SVC_STORE_LIMIT must be an integer/],
  ];
  /** `svc check`'s config in `env`, or the message it refuses it with. */
  const checked = (env: NodeJS.ProcessEnv): unknown => {
    try {
      return parseConfig(['check'], env).config;
    } catch (e) {
      return (e as Error).message;
    }
  };
  // As flags, the same values are refused naming the flags (each test above names the variable: the
  // value came from it, and a user looking for the flag would find none).
  t.throws(() => parseConfig(['serve', '--workers', 'many'], {}), /^--workers must be an integer/, 'a flag is named as a flag');
  t.throws(() => parseConfig(['serve', '--workers', 'many'], { SVC_WORKERS: '2' }), /^--workers must be an integer/, 'the flag wins, and is named');
  const defaults = parseConfig(['check'], {}).config;
  for (const [env, message] of refused) {
    const what = Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ');
    t.throws(() => parseConfig(['serve'], env), message, `${what}: svc serve refuses it`);
    t.same(checked(env), defaults, `${what}: svc check does not read it`);
  }
  // Nor are those serve takes as they come: they change nothing `svc check` does.
  const accepted = { HOST: '0.0.0.0', SVC_STORE: 'mongodb://db/svc', SVC_DEV: '1', SVC_WAIT_FOR_STORE: '1' };
  t.same(checked(accepted), defaults, 'nor those serve takes');
  t.match(parseConfig(['check'], { SVC_APP: '/a' }).config, { app: '/a' }, 'SVC_APP, of --app, is read');
  t.match(parseConfig(['check'], { SVC_TENANTS: '/t' }).config, { tenants: '/t' }, 'SVC_TENANTS, of --tenants, is read');

  // All of them at once, as an image or a shell set for serve: the check runs and passes.
  const env = { ...process.env, ...Object.assign({}, ...refused.map(([e]) => e)), SVC_APP: EXAMPLE_APP };
  const { code, out } = await new Promise<{ code: number; out: string }>((resolve) =>
    execFile(NODE, [...NODE_FLAGS, join(ROOT, 'src/cli.ts'), 'check'], { cwd: ROOT, env }, (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, out: stdout + stderr })),
  );
  t.equal(code, 0, out);
  t.match(out, /^svc check: \d+ models, \d+ handlers: ok$/m, 'the app was checked');
});

t.test('--memory-limit below 8 MiB is refused, as in svc.json (it was raised to 8 without a word)', async (t) => {
  for (const raw of ['1', '4', '7']) {
    t.throws(() => parseConfig(['serve', '--memory-limit', raw], {}), new RegExp(`^--memory-limit must be an integer ≥ 8, not "${raw}"$`), `--memory-limit ${raw}`);
    t.throws(() => parseConfig(['serve'], { SVC_MEMORY_LIMIT: raw }), /^SVC_MEMORY_LIMIT must be an integer ≥ 8/, `SVC_MEMORY_LIMIT=${raw}`);
  }
  t.equal(parseConfig(['serve', '--memory-limit', '8'], {}).config.limits?.memoryLimitMiB, 8, '8 is taken');
});
