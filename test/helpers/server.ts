// Test helpers: a real server on 127.0.0.1 port 0, and throw-away app directories.

import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuiltPlugins, Test as TapTest } from '@tapjs/test';
import { DEFAULT_CONFIG, type Config } from '../../src/config.ts';
import type { FetchPrivate } from '../../src/exchange/fetch-private.ts';
import { resolveLimits, type Limits } from '../../src/exchange/limits.ts';
import { logSink, type LogSink } from '../../src/exchange/log.ts';
import type { RuntimeFactory } from '../../src/exchange/runtime.ts';
import { start, type Running } from '../../src/main.ts';
import type { MemberData } from '../../src/model/types.ts';
import { EVENTS, handlerName } from '../../src/routing/events.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const EXAMPLE_APP = join(ROOT, 'app');

export interface StartOptions {
  appDir?: string;
  tenantsDir?: string;
  store?: string;
  dev?: boolean;
  publicUrl?: string;
  limits?: Partial<Limits>;
  tenantConcurrency?: number;
  /** --max-rss; default off: in-process servers share the test runner's memory, and ending it would end the test. */
  maxRssMiB?: number;
  /** What ends the process over --max-rss (main.ts Wiring). */
  endProcess?: () => void;
  /** Milliseconds a tenant idles before it is released; default the server's (5 minutes). */
  tenantIdleMs?: number;
  waitForStore?: boolean;
  cors?: string[];
  /** --fetch-private; default the server's (none with tenantsDir, any without). */
  fetchPrivate?: FetchPrivate;
  /** The handler runtime; default the sandbox. */
  runtime?: RuntimeFactory;
  /** Where log records go; default text lines on standard error. */
  log?: LogSink;
}

export interface TestServer extends Running {
  /** Absolute URL of a path on the server. */
  at(path: string): string;
}

let servers = 0;
/**
 * The store of a test server that names none: SQLite in memory, or, when SVC_TEST_STORE is a
 * mongodb:// URI (the HTTP suites on MongoDB, test/integration/http-on-mongodb.test.ts), a fresh
 * database of it for each server.
 */
function defaultStore(): string {
  const base = process.env.SVC_TEST_STORE;
  if (base === undefined || base === '') return 'sqlite::memory:';
  const url = new URL(base);
  url.pathname = `/t${process.pid}_${++servers}`;
  return url.href;
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const config: Config = {
    app: opts.appDir ?? EXAMPLE_APP,
    ...(opts.tenantsDir ? { tenants: opts.tenantsDir } : {}),
    port: 0,
    host: '127.0.0.1',
    store: opts.store ?? defaultStore(),
    dev: opts.dev ?? false,
    ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}),
    ...(opts.cors ? { cors: opts.cors } : {}),
    ...(opts.fetchPrivate !== undefined ? { fetchPrivate: opts.fetchPrivate } : {}),
    waitForStore: opts.waitForStore ?? false,
    workers: 1,
    tenantConcurrency: opts.tenantConcurrency ?? 64,
    maxRssMiB: opts.maxRssMiB ?? 0,
    tenantIdleMs: opts.tenantIdleMs ?? DEFAULT_CONFIG.tenantIdleMs,
    logFormat: 'text',
    logLevel: 'info',
    limits: resolveLimits(opts.limits),
  };
  // Tests log warnings and errors only, unless they capture the log: one line per request is noise here.
  const running = await start(config, {
    ...(opts.runtime ? { runtime: opts.runtime } : {}),
    ...(opts.endProcess ? { endProcess: opts.endProcess } : {}),
    log: opts.log ?? logSink('text', 'warn'),
  });
  return Object.assign(running, { at: (path: string) => running.url + path });
}

export interface AppFiles {
  /** A directory whose files the app starts as a copy of (a fixture app). */
  copyOf?: string;
  models?: Record<string, unknown>;
  resources?: Record<string, string>;
  /** Other files, path relative to the app directory → content. */
  files?: Record<string, string>;
}

/** Writes an app directory under the system temp dir; `cleanup` removes it. */
export function makeApp(files: AppFiles): { dir: string; write(rel: string, content: string): void; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-app-'));
  const write = (rel: string, content: string) => {
    const file = join(dir, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  };
  if (files.copyOf !== undefined) cpSync(files.copyOf, dir, { recursive: true });
  mkdirSync(join(dir, 'models'), { recursive: true });
  mkdirSync(join(dir, 'resources'), { recursive: true });
  for (const [name, model] of Object.entries(files.models ?? {})) {
    write(`models/${name}.json`, typeof model === 'string' ? model : JSON.stringify(model, null, 2));
  }
  for (const [name, code] of Object.entries(files.resources ?? {})) write(`resources/${name}`, code);
  for (const [rel, content] of Object.entries(files.files ?? {})) write(rel, content);
  return { dir, write, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** fetch with a JSON body helper. */
export async function send(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A tap test (subtests are the same type). */
type Test = TapTest<BuiltPlugins> & BuiltPlugins;

/** A server for an app made of `files` in a temporary directory, stopped and removed when the test `t` ends. */
export async function appServer(t: Pick<Test, 'teardown'>, files: AppFiles, opts: Omit<StartOptions, 'appDir'> = {}): Promise<TestServer & { dir: string; write(rel: string, content: string): void }> {
  const app = makeApp(files);
  const server = await startServer({ ...opts, appDir: app.dir });
  t.teardown(async () => {
    await server.close();
    app.cleanup();
  });
  return Object.assign(server, { dir: app.dir, write: app.write });
}

/**
 * A server in tenant mode (`--tenants`): a temporary directory with a copy of the app `files` for
 * each of `names`, each tenant's data in a SQLite file of its own in another temporary directory
 * (unless `opts.store` says otherwise); stopped and both directories removed when `t` ends.
 * `addTenant` copies the app in as one more tenant.
 */
export async function tenantsServer(
  t: Pick<Test, 'teardown'>,
  names: readonly string[],
  files: AppFiles,
  opts: Omit<StartOptions, 'appDir' | 'tenantsDir'> = {},
): Promise<TestServer & { tenants: string; addTenant(name: string): void }> {
  const template = makeApp(files);
  const tenants = mkdtempSync(join(tmpdir(), 'svc-tenants-'));
  const data = mkdtempSync(join(tmpdir(), 'svc-tenant-data-'));
  const addTenant = (name: string) => cpSync(template.dir, join(tenants, name), { recursive: true });
  for (const name of names) addTenant(name);
  const server = await startServer({ store: `sqlite:${join(data, 'svc.sqlite')}`, ...opts, tenantsDir: tenants });
  t.teardown(async () => {
    await server.close();
    template.cleanup();
    rmSync(tenants, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });
  return Object.assign(server, { tenants, addTenant });
}

/**
 * The two ways a handler serves with the default handler: the one-line `svc.delegate();`, which
 * the server recognises and runs without an isolate, and a module implementing every event as
 * `svc.delegate()`, which runs in the isolate and reaches the default handler through the bridge.
 */
export const HANDLER_FORMS = [
  { name: 'one-line svc.delegate()', code: 'svc.delegate();\n' },
  { name: 'every event delegating in the isolate', code: EVENTS.map((e) => `export function ${handlerName(e)}() {\n  svc.delegate();\n}\n`).join('') },
] as const;

/** Runs `suite` once per handler form, as a subtest of `t` named after it; `delegate` is the handler's code. */
export function eachHandlerForm(t: Pick<Test, 'test'>, suite: (t: Test, delegate: string) => Promise<void>): void {
  // On another store (SVC_TEST_STORE) the store is what is tested: the one-line form is enough.
  const forms = process.env.SVC_TEST_STORE ? HANDLER_FORMS.slice(0, 1) : HANDLER_FORMS;
  for (const form of forms) t.test(form.name, (t) => suite(t, form.code));
}

/**
 * `count` members of `collection` written straight through the store of the server's app (not
 * over HTTP: a seed of thousands in a fraction of a second), member i holding `data(i)` and
 * `updated` i ms after 2024-01-01, so that they list in that order.
 */
export async function seedMembers(server: Running, collection: string, count: number, data: (i: number) => MemberData): Promise<void> {
  const app = (await server.apps.resolve('localhost'))!;
  const model = app.models.get(collection)!;
  await app.store.ensure(model);
  await Promise.all(Array.from({ length: count }, (_, i) => app.store.insert(model, data(i), new Date(Date.UTC(2024, 0, 1) + i).toISOString())));
}

/**
 * A server for a one-collection app (`notes`, one field `text` of `type`, served by
 * `svc.delegate()`), stopped and removed when the test `t` ends.
 */
export async function notesServer(
  t: { teardown(fn: () => unknown): void },
  type: 'string' | 'text' = 'text',
  opts: Omit<StartOptions, 'appDir'> = {},
): Promise<TestServer> {
  return appServer(t, { models: { notes: { fields: { text: { type } } } }, resources: { 'notes.ts': 'svc.delegate();\n' } }, opts);
}
