// The command line: `svc serve` and `svc check` (README "Configuration"). Every flag of `svc serve` has an environment variable.

import cluster from 'node:cluster';
import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CONFIG, fetchPrivateOf, type Config } from './config.ts';
import { parseFetchPrivate, type FetchPrivate } from './exchange/fetch-private.ts';
import { resolveLimits, type Limits } from './exchange/limits.ts';
import { LOG_FORMATS, LOG_LEVELS, Logger, oneLine, serverLogger, type LogFormat, type LogLevel } from './exchange/log.ts';
import { autoWorkers, runPrimary, worker } from './cluster.ts';
import { nodeSnapshotDisabled } from './node-flags.ts';
import { exitAfterStop } from './process-exit.ts';
import { isVolatile } from './store/open.ts';
import { redact } from './store/redact.ts';
// The server itself (main.ts, the sandbox, the stores) is imported where it runs, in the worker
// processes and in `svc check`: the primary only forks and supervises, and stays small.

const USAGE = `usage:
  svc serve [--app DIR] [--tenants DIR] [--port N] [--host ADDR] [--store URI] [--public-url URL] [--dev]
            [--wait-for-store] [--cors ORIGINS] [--fetch-private none|any|CIDR,...] [--workers N|auto] [--tenant-concurrency N]
            [--tenant-idle MS] [--max-rss MIB]
            [--log-format text|json] [--log-level LEVEL] [limits]
  svc check [--app DIR | --tenants DIR] [--types]   (takes no option of svc serve)

limits: --max-body BYTES --max-url BYTES --request-timeout MS --cpu-limit MS --memory-limit MIB --max-output BYTES --store-limit MS
environment: SVC_APP SVC_TENANTS PORT HOST SVC_STORE SVC_PUBLIC_URL SVC_DEV SVC_WAIT_FOR_STORE SVC_CORS SVC_FETCH_PRIVATE SVC_WORKERS SVC_TENANT_CONCURRENCY SVC_TENANT_IDLE SVC_MAX_RSS
             SVC_LOG_FORMAT SVC_LOG_LEVEL SVC_MAX_BODY SVC_MAX_URL SVC_REQUEST_TIMEOUT SVC_CPU_LIMIT
             SVC_MEMORY_LIMIT SVC_MAX_OUTPUT SVC_STORE_LIMIT`;

/** Flag → environment variable → config key, as data; `ms`: a time in milliseconds (LONGEST_TIMER_MS). */
const OPTIONS = {
  app: { env: 'SVC_APP' },
  tenants: { env: 'SVC_TENANTS' },
  port: { env: 'PORT' },
  host: { env: 'HOST' },
  store: { env: 'SVC_STORE' },
  'public-url': { env: 'SVC_PUBLIC_URL' },
  cors: { env: 'SVC_CORS' },
  'fetch-private': { env: 'SVC_FETCH_PRIVATE' },
  workers: { env: 'SVC_WORKERS' },
  'tenant-concurrency': { env: 'SVC_TENANT_CONCURRENCY' },
  'max-rss': { env: 'SVC_MAX_RSS' },
  'tenant-idle': { env: 'SVC_TENANT_IDLE', ms: true },
  'log-format': { env: 'SVC_LOG_FORMAT' },
  'log-level': { env: 'SVC_LOG_LEVEL' },
  'max-body': { env: 'SVC_MAX_BODY', limit: 'maxBodyBytes' },
  'max-url': { env: 'SVC_MAX_URL', limit: 'maxUrlBytes' },
  'request-timeout': { env: 'SVC_REQUEST_TIMEOUT', limit: 'requestTimeoutMs', ms: true },
  'cpu-limit': { env: 'SVC_CPU_LIMIT', limit: 'cpuLimitMs', ms: true },
  // An isolate needs some heap to start and run the runtime: below 8 MiB is refused, as in svc.json.
  'memory-limit': { env: 'SVC_MEMORY_LIMIT', limit: 'memoryLimitMiB', min: 8 },
  'max-output': { env: 'SVC_MAX_OUTPUT', limit: 'maxOutputBytes' },
  'store-limit': { env: 'SVC_STORE_LIMIT', limit: 'storeLimitMs', ms: true },
} as const satisfies Record<string, { env: string; limit?: keyof Limits; ms?: true; min?: number }>;

/**
 * The flags `svc check` takes; every other flag is an option of `svc serve`, and `svc check`
 * refuses it rather than ignore it (`svc check --port 0` looks like it checked something with
 * it). Their environment variables are neither refused nor read: a shell or an image sets them
 * for serve, and a value serve would refuse (SVC_FETCH_PRIVATE=private) is not check's to judge.
 */
const CHECK_FLAGS: readonly string[] = ['app', 'tenants', 'types', 'help'];

class UsageError extends Error {}

/**
 * The most an option in milliseconds (`ms` in OPTIONS) may be. Node runs a timer of more than
 * 2^31 − 1 ms after 1 ms instead (with a TimeoutOverflowWarning): a longer --tenant-idle re-armed
 * every idle tenant's timer every millisecond, a longer --request-timeout cut a response its client
 * did not take within 1 ms.
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * A switch (`--dev`, `--wait-for-store`): on with its flag, else as its variable says. `1` and
 * `true` are on; unset, empty, `0` and `false` are off; any other value is refused, naming the
 * variable (`SVC_DEV=yes` was off without a word).
 */
function switchOn(flag: boolean | undefined, variable: string, env: Readonly<Record<string, string | undefined>>): boolean {
  if (flag === true) return true;
  const raw = env[variable];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new UsageError(`${variable} must be 1, true, 0 or false, not "${raw}"`);
}

function integer(name: string, raw: string, min: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, not "${raw}"`);
  if ((OPTIONS as Record<string, { ms?: true }>)[name]?.ms && Number(raw) > LONGEST_TIMER_MS) {
    throw new UsageError(`--${name} must be at most ${LONGEST_TIMER_MS} (ms), not "${raw}": a longer time is more than a timer holds (24.8 days)`);
  }
  return Number(raw);
}

/** Throws a UsageError naming --public-url unless `url` is an origin every client could use. */
function checkPublicUrl(url: string, tenants: boolean): void {
  if (!/^https?:\/\/(?:[A-Za-z0-9_.{}-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(url)) {
    throw new UsageError(`--public-url must be an origin such as https://api.example.com or https://{tenant}.example.com (no path), not "${url}"`);
  }
  if (/[{}]/.test(url.replaceAll('{tenant}', ''))) throw new UsageError(`--public-url may contain {tenant} and no other braces, not "${url}"`);
  // The pattern lets through what no client could use: brackets around what is not IPv6, a port
  // past 65535, a host that looks like IPv4 and is no address (1.2.3.999).
  const bracketed = /^https?:\/\/\[([^\]]*)\]/.exec(url)?.[1];
  if (bracketed !== undefined && isIP(bracketed) !== 6) {
    throw new UsageError(`--public-url ${url}: [${bracketed}] is not an IPv6 address; brackets hold IPv6 only (https://[2001:db8::1]), an IPv4 address goes without them (https://192.0.2.1)`);
  }
  const port = /:(\d+)$/.exec(url)?.[1];
  if (port !== undefined && Number(port) > 65535) throw new UsageError(`--public-url ${url}: the port must be at most 65535, not ${port}`);
  if (port !== undefined && Number(port) === 0) throw new UsageError(`--public-url ${url}: no client can connect to port 0; give the port clients use (1 to 65535), or none`);
  const parsed = URL.parse(url.replaceAll('{tenant}', 'tenant'));
  if (parsed === null) {
    throw new UsageError(`--public-url ${url} is not a URL: its host must be a name or an IP address (an IPv4 address is four numbers of 0 to 255)`);
  }
  if (bracketed === undefined) {
    const host = /^https?:\/\/([^:]+)/.exec(url)![1]!;
    // The URL parser reads other spellings of IPv4 as an address (1.2.3 is 1.2.0.3, 0x7f.1 and
    // 2130706433 are 127.0.0.1), and lets a name have empty labels (a..b, .): a typo either way.
    const address = parsed.hostname;
    if (isIP(address) === 4 && address !== host) {
      throw new UsageError(`--public-url ${url}: ${host} is read as the IPv4 address ${address}; write an IPv4 address as four numbers of 0 to 255 (such as 192.0.2.1)`);
    }
    if (host.split('.').slice(0, -1).includes('')) throw new UsageError(`--public-url ${url}: the host ${host} has an empty label; write a name such as api.example.com`);
  }
  if (url.includes('{tenant}') && !tenants) {
    throw new UsageError(`--public-url ${url}: {tenant} stands for the tenant's name, and there are tenants only with --tenants; without it, give the origin itself (https://api.example.com)`);
  }
}

/** What `svc check` does beyond validating models and compiling handlers. */
export interface CheckOptions {
  /** `--types`: type-check the handler scripts against runtime/svc.d.ts. Default off. */
  readonly types: boolean;
}

export function parseConfig(argv: string[], processEnv: NodeJS.ProcessEnv): { command: string; config: Config; check: CheckOptions } {
  /** Options whose value came from their environment variable, not a flag. */
  const fromEnv = new Set<string>();
  try {
    return readConfig(argv, processEnv, fromEnv);
  } catch (e) {
    // An error about an option names it as the user gave it: `SVC_WORKERS must be …` for a value
    // from the environment (`--workers must be …` sent them looking for a flag they never passed).
    const name = e instanceof UsageError ? /^--([a-z-]+)/.exec(e.message)?.[1] : undefined;
    if (name === undefined || !fromEnv.has(name)) throw e;
    throw new UsageError(`${OPTIONS[name as keyof typeof OPTIONS].env}${(e as UsageError).message.slice(name.length + 2)}`);
  }
}

function readConfig(argv: string[], processEnv: NodeJS.ProcessEnv, fromEnv: Set<string>): { command: string; config: Config; check: CheckOptions } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...Object.fromEntries(Object.keys(OPTIONS).map((k) => [k, { type: 'string' as const }])),
      dev: { type: 'boolean' },
      'wait-for-store': { type: 'boolean' },
      types: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0] ?? 'help';
  if (values.help) return { command: 'help', config: undefined as never, check: { types: false } };
  if (values.types === true && command !== 'check') throw new UsageError('--types is an option of svc check');
  const serveOnly = command === 'check' ? Object.keys(values).filter((name) => !CHECK_FLAGS.includes(name)) : [];
  if (serveOnly.length > 0) {
    const flags = serveOnly.map((name) => `--${name}`).join(', ');
    throw new UsageError(`${flags} ${serveOnly.length === 1 ? 'is an option' : 'are options'} of svc serve; svc check takes only --app or --tenants, and --types`);
  }
  // What `svc check` does not take keeps its default: it reads the environment of its own flags
  // only (CHECK_FLAGS), so no check of a serve option below ever runs for it.
  const env: NodeJS.ProcessEnv =
    command === 'check' ? Object.fromEntries(Object.entries(OPTIONS).filter(([name]) => CHECK_FLAGS.includes(name)).map(([, o]) => [o.env, processEnv[o.env]])) : processEnv;
  const flag = (name: keyof typeof OPTIONS): string | undefined => (values as Record<string, unknown>)[name] as string | undefined;
  const get = (name: keyof typeof OPTIONS): string | undefined => {
    const given = flag(name);
    if (given !== undefined) return given;
    const raw = env[OPTIONS[name].env] || undefined;
    if (raw !== undefined) fromEnv.add(name);
    return raw;
  };
  const given: { -readonly [K in keyof Limits]?: Limits[K] } = {};
  for (const [name, opt] of Object.entries(OPTIONS)) {
    const raw = get(name as keyof typeof OPTIONS);
    if ('limit' in opt && raw !== undefined) given[opt.limit] = integer(name, raw, 'min' in opt ? opt.min : 1);
  }
  const limits = resolveLimits(given);
  const port = get('port');
  // An empty environment variable counts as unset (127.0.0.1), but an empty flag is what
  // `--host "$UNSET"` gives, and Node binds every interface for it.
  if (flag('host') === '') throw new UsageError('--host needs an address, not "": 127.0.0.1 for this machine only, 0.0.0.0 to listen on every interface');
  // --app and --tenants choose the mode: one of them. A flag wins over the other's variable
  // (SVC_TENANTS set in a shell or an image does not turn `--app DIR` into tenant mode).
  if (flag('app') !== undefined && flag('tenants') !== undefined) {
    throw new UsageError('--app and --tenants are one or the other: --app DIR serves one app, --tenants DIR a directory of tenant apps');
  }
  const tenants = flag('app') !== undefined ? undefined : get('tenants');
  const publicUrl = get('public-url');
  if (publicUrl !== undefined) checkPublicUrl(publicUrl, tenants !== undefined);
  const corsRaw = get('cors');
  const cors = corsRaw?.split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const o of cors ?? []) {
    if (o !== '*' && !/^https?:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(o)) {
      throw new UsageError(`--cors takes origins such as https://app.example.com (comma-separated) or *, not "${o}"`);
    }
  }
  const fetchPrivateRaw = get('fetch-private');
  let fetchPrivate: FetchPrivate | undefined;
  try {
    fetchPrivate = fetchPrivateRaw === undefined ? undefined : parseFetchPrivate(fetchPrivateRaw);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const workersRaw = get('workers');
  const workers = workersRaw === undefined ? DEFAULT_CONFIG.workers : workersRaw === 'auto' ? autoWorkers() : integer('workers', workersRaw, 1);
  const concurrency = get('tenant-concurrency');
  const maxRss = get('max-rss');
  const tenantIdle = get('tenant-idle');
  const logFormat = get('log-format') ?? DEFAULT_CONFIG.logFormat;
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) throw new UsageError(`--log-format must be ${LOG_FORMATS.join(' or ')}, not "${logFormat}"`);
  const logLevel = get('log-level') ?? DEFAULT_CONFIG.logLevel;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`);
  const config: Config = {
    app: get('app') ?? DEFAULT_CONFIG.app,
    ...(tenants !== undefined ? { tenants } : {}),
    port: port === undefined ? DEFAULT_CONFIG.port : integer('port', port, 0),
    host: get('host') ?? DEFAULT_CONFIG.host,
    store: get('store') ?? DEFAULT_CONFIG.store,
    dev: switchOn(values.dev, 'SVC_DEV', env),
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    ...(cors !== undefined && cors.length > 0 ? { cors } : {}),
    // Unset, the default follows --tenants (fetchPrivateOf); the --workers processes parse the
    // same arguments and environment (cluster.fork), so they get the same value.
    ...(fetchPrivate !== undefined ? { fetchPrivate } : {}),
    waitForStore: switchOn(values['wait-for-store'], 'SVC_WAIT_FOR_STORE', env),
    workers,
    tenantConcurrency: concurrency === undefined ? DEFAULT_CONFIG.tenantConcurrency : integer('tenant-concurrency', concurrency, 1),
    maxRssMiB: maxRss === undefined ? DEFAULT_CONFIG.maxRssMiB : integer('max-rss', maxRss, 0),
    tenantIdleMs: tenantIdle === undefined ? DEFAULT_CONFIG.tenantIdleMs : integer('tenant-idle', tenantIdle, 0),
    logFormat: logFormat as LogFormat,
    logLevel: logLevel as LogLevel,
    limits,
  };
  // A volatile store lives in the memory of the process that opened it (mongodb-memory starts a
  // mongod per process): each worker would have a database of its own.
  if (workers > 1 && isVolatile(config.store)) {
    throw new UsageError(`--workers ${workers} needs a store the workers share: ${config.store} lives in each process, so each worker would have its own; use sqlite:<file> or mongodb://…`);
  }
  if (config.port > 65535) throw new UsageError(`--port must be at most 65535`);
  return { command, config, check: { types: values.types === true } };
}

function describe(config: Config): string {
  const where = config.tenants !== undefined ? `tenants in ${resolve(config.tenants)}` : `app ${resolve(config.app)}`;
  const workers = config.workers > 1 ? `, ${config.workers} workers` : '';
  return `${where}, store ${redact(config.store)}${workers}${config.dev ? ', development mode' : ''}`;
}

async function serve(config: Config): Promise<void> {
  if (!nodeSnapshotDisabled(process.execArgv, process.env.NODE_OPTIONS)) {
    console.error('svc: warning: Node was started without --no-node-snapshot, which isolated-vm needs (handlers may crash the process); start svc with npm start, bin/svc.js or node --no-node-snapshot');
  }
  if (config.workers > 1 && cluster.isPrimary) {
    runPrimary(config.workers, serverLogger(config.logFormat, config.logLevel), (url) => console.log(`svc listening on ${url} (${describe(config)})`));
    return;
  }
  const { start } = await import('./main.ts');
  const { createSandboxRuntime, endProcess } = await import('./sandbox/runtime.ts');
  const inWorker = cluster.isWorker;
  const running = await start(
    config,
    inWorker
      ? {
          metricsText: () => worker.metricsText(),
          // The primary learns which app's isolate took the process down, and restarts it.
          runtime: (scope) =>
            createSandboxRuntime(scope, {
              onCatastrophicError: (message) => {
                worker.fatal(`a fatal isolate error of app "${scope.name || 'app'}": ${message}`);
                endProcess();
              },
            }),
          endProcess: () => {
            worker.fatal(`passing --max-rss ${config.maxRssMiB} MiB`);
            endProcess();
          },
        }
      : {},
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`svc: ${signal}: finishing in-flight requests`);
    running.close().then(
      // 0, unless the stop was the process ending itself for a failure (endProcess sets the code).
      () => exitAfterStop(process.exitCode === undefined ? 0 : Number(process.exitCode)),
      (e) => {
        console.error(`svc: shutdown failed: ${e}`);
        return exitAfterStop(1);
      },
    );
  };
  // Before the server says it listens: until Node has a listener for a signal, the signal ends the
  // process at once, and whoever starts it may stop it as soon as it reads the line.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (inWorker) {
    worker.register(running.metrics.registry);
    worker.listening(running.url);
  } else {
    console.log(`svc listening on ${running.url} (${describe(config)})`);
  }
}

/**
 * Validates every model and compiles every handler of the app (of every tenant, with
 * `--tenants`), and with `--types` type-checks the handlers that compile; the number of problems
 * found. Throws when TypeScript is missing.
 */
export async function check(config: Config, out: (line: string) => void = console.log, options: CheckOptions = { types: false }): Promise<number> {
  // Before anything else: without TypeScript, --types cannot run at all.
  const { loadTypeScript, typeErrors } = await import('./sandbox/typecheck.ts');
  const ts = options.types ? await loadTypeScript() : undefined;
  const [{ App }, { openStore }, { sandboxRuntime }] = await Promise.all([import('./tenancy/app.ts'), import('./store/open.ts'), import('./sandbox/runtime.ts')]);
  const problems: string[] = [];
  const warnings: string[] = [];
  let models = 0;
  let handlers = 0;
  /** One app's lines, each after `prefix`. */
  const checkApp = async (name: string, dir: string, prefix: string): Promise<void> => {
    const store = await openStore('sqlite::memory:', name);
    let app;
    try {
      // Model problems are printed below, once each: the app's own log of them is not wanted here.
      app = new App(name, dir, store, sandboxRuntime, config.limits, fetchPrivateOf(config), new Logger(() => {}));
    } catch (e) {
      await store.close();
      // The single app's svc.json is the one line the command prints; a tenant's is its problem.
      if (name === '') throw e;
      problems.push(prefix + (e as Error).message);
      return;
    }
    let result;
    try {
      result = await app.check();
    } finally {
      await app.close();
    }
    const types = ts ? await typeErrors(dir, result.compiled, ts) : [];
    problems.push(...[...result.problems, ...types].map((line) => prefix + line));
    warnings.push(...result.warnings.map((line) => prefix + line));
    models += result.models;
    handlers += result.handlers;
  };
  let summary = '';
  if (config.tenants === undefined) await checkApp('', resolve(config.app), '');
  else {
    // The directories the start-up summary checks (src/tenancy/tenants.ts), in order of name.
    const { tenantDirectories, TENANT_NAME_RULE } = await import('./tenancy/tenants.ts');
    const root = resolve(config.tenants);
    const { tenants, misnamed } = tenantDirectories(root);
    for (const name of misnamed) warnings.push(`${name}: warning: not served: ${TENANT_NAME_RULE}`);
    for (const name of tenants) await checkApp(name, join(root, name), `${name}: `);
    summary = `${tenants.length} tenant${tenants.length === 1 ? '' : 's'}, `;
  }
  // One line each, whatever a tenant named its files (`models/x\nacme: ok.json`) or put in them: a
  // line break or a terminal's escape sequence is written as its JSON escape (log.ts oneLine).
  for (const line of [...problems, ...warnings]) out(oneLine(line));
  const n = problems.length;
  out(n === 0 ? `svc check: ${summary}${models} models, ${handlers} handlers: ok` : `svc check: ${n} problem${n === 1 ? '' : 's'}`);
  return n;
}

export async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseConfig(process.argv.slice(2), process.env);
  } catch (e) {
    console.error(`svc: ${(e as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  try {
    await run(parsed.command, parsed.config, parsed.check);
  } catch (e) {
    console.error(`svc: ${(e as Error).message}`);
    process.exit(1);
  }
}

/** The app (or tenants) directory must exist before anything is opened: one line saying which flag to fix. */
function requireDirectory(flag: string, dir: string, what: string): void {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st) throw new Error(`${flag} ${dir}: no such directory (${what})`);
  if (!st.isDirectory()) throw new Error(`${flag} ${dir}: not a directory (${what})`);
}

async function run(command: string, config: Config, checkOptions: CheckOptions): Promise<void> {
  if (command === 'serve' || command === 'check') {
    if (config.tenants !== undefined) requireDirectory('--tenants', config.tenants, 'it holds one app directory per tenant');
    else requireDirectory('--app', config.app, 'an app directory holds models/ and resources/');
  }
  switch (command) {
    case 'serve':
      return serve(config);
    case 'check':
      process.exit((await check(config, console.log, checkOptions)) === 0 ? 0 : 1);
      break;
    case 'help':
      console.log(USAGE);
      return;
    default:
      console.error(`svc: unknown command "${command}"\n${USAGE}`);
      process.exit(2);
  }
}

if (import.meta.main) await main();
