// The command line: `svc serve` and `svc check` (SPEC §2). Every flag has an environment variable.

import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CONFIG, DEFAULT_LIMITS, type Config, type Limits } from './config.ts';
import { defaultRuntime, start } from './main.ts';
import { openStore } from './store/open.ts';
import { App } from './tenancy/app.ts';

const USAGE = `usage:
  svc serve [--app DIR] [--tenants DIR] [--port N] [--host ADDR] [--store URI] [--public-url URL] [--dev] [limits]
  svc check [--app DIR]

limits: --max-body BYTES --max-url BYTES --request-timeout MS --cpu-limit MS --memory-limit MIB --max-output BYTES
environment: SVC_APP SVC_TENANTS PORT HOST SVC_STORE SVC_PUBLIC_URL SVC_DEV SVC_MAX_BODY SVC_MAX_URL
             SVC_REQUEST_TIMEOUT SVC_CPU_LIMIT SVC_MEMORY_LIMIT SVC_MAX_OUTPUT`;

/** Flag → environment variable → config key, as data. */
const OPTIONS = {
  app: { env: 'SVC_APP' },
  tenants: { env: 'SVC_TENANTS' },
  port: { env: 'PORT' },
  host: { env: 'HOST' },
  store: { env: 'SVC_STORE' },
  'public-url': { env: 'SVC_PUBLIC_URL' },
  'max-body': { env: 'SVC_MAX_BODY', limit: 'maxBodyBytes' },
  'max-url': { env: 'SVC_MAX_URL', limit: 'maxUrlBytes' },
  'request-timeout': { env: 'SVC_REQUEST_TIMEOUT', limit: 'requestTimeoutMs' },
  'cpu-limit': { env: 'SVC_CPU_LIMIT', limit: 'cpuLimitMs' },
  'memory-limit': { env: 'SVC_MEMORY_LIMIT', limit: 'memoryLimitMiB' },
  'max-output': { env: 'SVC_MAX_OUTPUT', limit: 'maxOutputBytes' },
} as const satisfies Record<string, { env: string; limit?: keyof Limits }>;

class UsageError extends Error {}

function integer(name: string, raw: string, min: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, not "${raw}"`);
  return Number(raw);
}

export function parseConfig(argv: string[], env: NodeJS.ProcessEnv): { command: string; config: Config } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...Object.fromEntries(Object.keys(OPTIONS).map((k) => [k, { type: 'string' as const }])),
      dev: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0] ?? 'help';
  if (values.help) return { command: 'help', config: undefined as never };
  const get = (name: keyof typeof OPTIONS): string | undefined => ((values as Record<string, unknown>)[name] as string | undefined) ?? (env[OPTIONS[name].env] || undefined);
  const limits: Limits = { ...DEFAULT_LIMITS };
  for (const [name, opt] of Object.entries(OPTIONS)) {
    const raw = get(name as keyof typeof OPTIONS);
    if ('limit' in opt && raw !== undefined) limits[opt.limit] = integer(name, raw, 1);
  }
  const port = get('port');
  const tenants = get('tenants');
  const publicUrl = get('public-url');
  if (publicUrl !== undefined && !/^https?:\/\/(?:[A-Za-z0-9_.{}-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(publicUrl)) {
    throw new UsageError(`--public-url must be an origin such as https://api.example.com or https://{tenant}.example.com (no path), not "${publicUrl}"`);
  }
  const config: Config = {
    app: get('app') ?? DEFAULT_CONFIG.app,
    ...(tenants !== undefined ? { tenants } : {}),
    port: port === undefined ? DEFAULT_CONFIG.port : integer('port', port, 0),
    host: get('host') ?? DEFAULT_CONFIG.host,
    store: get('store') ?? DEFAULT_CONFIG.store,
    dev: values.dev === true || env.SVC_DEV === '1' || env.SVC_DEV === 'true',
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    limits,
  };
  if (config.port > 65535) throw new UsageError(`--port must be at most 65535`);
  return { command, config };
}

/**
 * Whether Node runs without its startup snapshot. isolated-vm requires it on Node 20 and later:
 * isolates created beside Node's snapshot can crash the process (isolated-vm README; laverdet/isolated-vm#420).
 */
export function nodeSnapshotDisabled(execArgv: readonly string[], nodeOptions = ''): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].includes('--no-node-snapshot');
}

async function serve(config: Config): Promise<void> {
  if (!nodeSnapshotDisabled(process.execArgv, process.env.NODE_OPTIONS)) {
    console.error('svc: warning: Node was started without --no-node-snapshot, which isolated-vm needs (handlers may crash the process); start svc with npm start, bin/svc.js or node --no-node-snapshot');
  }
  const running = await start(config);
  const where = config.tenants !== undefined ? `tenants in ${resolve(config.tenants)}` : `app ${resolve(config.app)}`;
  console.log(`svc listening on ${running.url} (${where}, store ${config.store.replace(/\/\/[^@/]*@/, '//…@')})`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`svc: ${signal}: finishing in-flight requests`);
    running.close().then(
      () => process.exit(0),
      (e) => {
        console.error(`svc: shutdown failed: ${e}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Validates every model and compiles every handler of the app; the number of problems found. */
export async function check(config: Config, out: (line: string) => void = console.log): Promise<number> {
  const dir = resolve(config.app);
  const app = new App('', dir, await openStore('sqlite::memory:', ''));
  app.runtime = defaultRuntime(app, config);
  let problems = 0;
  const { models, problems: bad } = app.models.all();
  for (const p of bad) {
    out(`${p.file}: ${p.reason}`);
    problems++;
  }
  let scripts: string[] = [];
  try {
    scripts = readdirSync(join(dir, 'resources')).filter((f) => /^[A-Za-z][A-Za-z0-9_-]*\.(ts|js)$/.test(f)).sort();
  } catch {
    // An app without resources/ serves nothing, which is not an error.
  }
  for (const script of scripts) {
    const collection = script.replace(/\.(ts|js)$/, '');
    const error = await app.runtime.check(join(dir, 'resources', script));
    if (error !== undefined) {
      // The message names the file and line itself: the error may be in a file the script imports.
      out(error);
      problems++;
    } else if (!models.some((m) => m.name === collection) && !bad.some((p) => p.file === `models/${collection}.json`)) {
      out(`resources/${script}: warning: no model models/${collection}.json, so this handler serves nothing`);
    }
  }
  await app.close();
  out(problems === 0 ? `svc check: ${models.length} models, ${scripts.length} handlers: ok` : `svc check: ${problems} problem${problems === 1 ? '' : 's'}`);
  return problems;
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
    await run(parsed.command, parsed.config);
  } catch (e) {
    console.error(`svc: ${(e as Error).message}`);
    process.exit(1);
  }
}

async function run(command: string, config: Config): Promise<void> {
  switch (command) {
    case 'serve':
      return serve(config);
    case 'check':
      process.exit((await check(config)) === 0 ? 0 : 1);
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
