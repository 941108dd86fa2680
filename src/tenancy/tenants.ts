// Apps by Host: one app in single-app mode; in tenant mode a sub-directory per tenant, opened on
// first use and closed again when it idles (README "Tenants").

import { EventEmitter } from 'node:events';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fetchPrivateOf, type Config } from '../config.ts';
import type { ServedApp } from '../exchange/app.ts';
import { Logger } from '../exchange/log.ts';
import type { RuntimeFactory } from '../exchange/runtime.ts';
import { SvcError } from '../errors.ts';
import { statNow } from '../model/file-stat.ts';
import { freedMemory } from '../malloc-trim.ts';
import { isVolatile, openStore, pageCacheMiB } from '../store/open.ts';
import { storeUnavailable, type Store } from '../store/store.ts';
import { App } from './app.ts';

/**
 * The names a tenant directory may have: the first label of a Host, lower-cased (a label starts
 * with a letter or digit, and is at most 63 characters: RFC 1035 §2.3.4). A longer name could not
 * come in a host name, and its store could not be named: SQLite's file (`svc.<name>.sqlite-wal`)
 * is over a file name's 255 bytes past about 240 characters.
 */
export const TENANT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** What a directory whose name is not a TENANT_NAME is told. */
export const TENANT_NAME_RULE = "tenant names are 1 to 63 lower-case letters, digits and '-' (not first), as a Host's first label";

/**
 * The directories of `root` as requests find them (a link to a directory is one, as `resolve`
 * follows it), by name: the tenants, and those whose name cannot be one. The start-up summary and
 * `svc check` list these.
 */
export function tenantDirectories(root: string): { tenants: string[]; misnamed: string[] } {
  const tenants: string[] = [];
  const misnamed: string[] = [];
  for (const e of readdirSync(root, { withFileTypes: true })) {
    // A link that leads nowhere, or back to itself (ELOOP), is no directory, as it is to resolve().
    const directory = e.isDirectory() || (e.isSymbolicLink() && statNow(join(root, e.name))?.isDirectory === true);
    if (directory) (TENANT_NAME.test(e.name) ? tenants : misnamed).push(e.name);
  }
  return { tenants: tenants.sort(), misnamed: misnamed.sort() };
}

/** A tenant's app while it is in the registry, and what holds it open. */
interface Tenant {
  readonly name: string;
  app: Promise<App>;
  /** Requests (and readiness probes) holding the app now, from resolve() to release(): it is never closed under one. */
  held: number;
  /** When the last request let go of it (performance.now(), ms). */
  idleSince: number;
  /** Looks again once `tenantIdleMs` may have passed since `idleSince`. */
  timer: NodeJS.Timeout | undefined;
  /** Why it left the registry (the next request opens the tenant afresh); it is closed once nothing holds it. */
  retired: Release | undefined;
}

/** Why a tenant's app is closed while the server runs: it had no request for `tenantIdleMs`, or its directory is gone. */
export type Release = 'idle' | 'removed';

export interface AppsEvents {
  /**
   * A tenant's app was closed and left the registry: its isolates are disposed and its store is
   * closed (a volatile store is kept for its next request).
   */
  released: [app: App, reason: Release];
}

export class Apps extends EventEmitter<AppsEvents> {
  #config: Config;
  #runtime: RuntimeFactory;
  #log: Logger;
  #single: App | undefined;
  #tenants = new Map<string, Tenant>();
  /** The registry entry of each tenant app, for release(). */
  #tenantOf = new WeakMap<App, Tenant>();
  /** Apps being closed, by tenant: its next app opens after, so a SQLite file has one handle at a time. */
  #closing = new Map<string, Promise<void>>();
  /** Volatile stores (`sqlite::memory:`, `mongodb-memory`) of idle-released tenants, whose data is the open handle: reused on their next request. */
  #kept = new Map<string, Store>();
  /** close() was called: no more idle timers. */
  #stopped = false;
  /** Start-up checks are done (see summarize()). */
  #checked = false;

  constructor(config: Config, runtime: RuntimeFactory, log: Logger) {
    super();
    this.#config = config;
    this.#runtime = runtime;
    this.#log = log;
  }

  async #open(name: string, dir: string, storeUri: string): Promise<App> {
    await this.#closing.get(name);
    let store = this.#kept.get(name);
    this.#kept.delete(name);
    const kept = store !== undefined;
    try {
      // With --wait-for-store the store connects on first use; /readyz says when it can answer.
      store ??= await openStore(storeUri, name, { lazy: this.#config.waitForStore, pageCacheMiB: pageCacheMiB(this.#config.maxRssMiB) });
    } catch (err) {
      // At start-up (single-app mode) the message is the one line the CLI prints; for a tenant's
      // first request it is a 503 that says to retry, with the cause in the log only.
      if (name === '' || err instanceof SvcError) throw err;
      this.#log.child({ tenant: name }).error(`the store cannot be opened: ${(err as Error)?.message ?? err}`);
      throw storeUnavailable(err);
    }
    let app: App;
    try {
      app = new App(name, dir, store, this.#runtime, this.#config.limits, fetchPrivateOf(this.#config), name === '' ? this.#log : this.#log.child({ tenant: name }));
    } catch (err) {
      if (kept) this.#kept.set(name, store);
      else await store.close();
      // Its directory went while the store opened (the request found it): served as the next
      // request is, not as an internal error naming the server's path.
      if (name !== '' && !(err instanceof SvcError) && statNow(dir)?.isDirectory !== true) {
        throw new SvcError('tenant-not-found', `No app is served for tenant ${JSON.stringify(name)}: its directory was removed.`);
      }
      throw err;
    }
    this.#opened.add(app);
    return app;
  }

  /** Opens the single app up front (so a bad store URI fails at start-up, not on a request). */
  async start(): Promise<void> {
    if (this.#config.tenants === undefined) this.#single = await this.#open('', resolve(this.#config.app), this.#config.store);
    // Tenants open their stores on first use: a store URI that is no store, or a MongoDB that
    // cannot be reached, stops the server now all the same (unless --wait-for-store), as with --app.
    else if (this.#sharedStore()) await (await openStore(this.#config.store, '', { lazy: this.#config.waitForStore })).close();
    else if (this.#config.store.startsWith('sqlite:') && !isVolatile(this.#config.store)) {
      const { checkTenantFiles } = await import('../store/sqlite/database.ts');
      checkTenantFiles(this.#config.store);
    }
  }

  /**
   * In tenant mode, whether the tenants' stores are one server to check as such (MongoDB), or a
   * URI no store opens: not SQLite files (each tenant's is its own), nor a volatile store.
   */
  #sharedStore(): boolean {
    const uri = this.#config.store;
    return this.#config.tenants !== undefined && !uri.startsWith('sqlite:') && !isVolatile(uri);
  }

  /** Whether the tenants' store server answers, through a store of its own opened for the question. */
  async #pingSharedStore(): Promise<void> {
    const store = await openStore(this.#config.store, '', { lazy: true });
    try {
      await store.ping();
    } finally {
      await store.close();
    }
  }

  /** The app for a request's Host as the server serves it ('' when it has none or it is an IP address); undefined for an unknown tenant. */
  async resolve(host: string): Promise<App | undefined> {
    if (this.#single) return this.#single;
    const tenantsDir = this.#config.tenants;
    if (tenantsDir === undefined) return undefined;
    // The first label of the name (an address the server gives as '': it names no tenant).
    const name = host.split(/[.:]/)[0]!.toLowerCase();
    if (!TENANT_NAME.test(name)) return undefined;
    const dir = join(resolve(tenantsDir), name);
    // Checked on every request, so that tenants can be added and removed without a restart.
    if (!statNow(dir)?.isDirectory) {
      const gone = this.#tenants.get(name);
      if (gone) this.#retire(gone, 'removed');
      return undefined;
    }
    let tenant = this.#tenants.get(name);
    if (!tenant) {
      const t: Tenant = { name, app: undefined as never, held: 0, idleSince: performance.now(), timer: undefined, retired: undefined };
      t.app = this.#open(name, dir, this.#config.store).then(
        (app) => {
          this.#tenantOf.set(app, t);
          return app;
        },
        (err: unknown) => {
          // The request log and the metrics name the tenant whose app could not be opened.
          if (typeof err === 'object' && err !== null) Object.assign(err, { tenant: name });
          throw err;
        },
      );
      t.app.catch(() => {
        if (this.#tenants.get(name) === t) this.#tenants.delete(name);
      });
      this.#tenants.set(name, t);
      tenant = t;
    }
    // Held from here, before the app is even open, until the server's release(): a request
    // between now and then keeps the app from being closed under it.
    tenant.held++;
    return tenant.app;
  }

  /** The request that resolve() returned `app` for is complete (answered, failed or cut off). */
  release(app: ServedApp): void {
    const t = this.#tenantOf.get(app as App);
    if (t) this.#letGo(t, true);
  }

  /** One hold of `t` ends; `used` when it was a request (a readiness probe does not keep a tenant open). */
  #letGo(t: Tenant, used: boolean): void {
    if (--t.held > 0) return;
    if (used) t.idleSince = performance.now();
    if (t.retired) this.#close(t, t.retired);
    else this.#watchIdle(t);
  }

  /**
   * Releases `t` once it has had no request for `tenantIdleMs`. One timer per idle tenant, not
   * reset by each request: when it fires it looks at `idleSince` and waits the rest if needed.
   */
  #watchIdle(t: Tenant): void {
    const idleMs = this.#config.tenantIdleMs;
    if (idleMs === 0 || t.timer !== undefined || t.retired || this.#stopped) return;
    t.timer = setTimeout(
      () => {
        t.timer = undefined;
        // Held again: its last release() watches again.
        if (t.held > 0 || t.retired) return;
        if (performance.now() - t.idleSince < idleMs) this.#watchIdle(t);
        else this.#retire(t, 'idle');
      },
      Math.max(0, t.idleSince + idleMs - performance.now()),
    ).unref();
  }

  /** Takes `t` out of the registry and closes it once nothing holds it. */
  #retire(t: Tenant, reason: Release): void {
    if (t.retired) return;
    t.retired = reason;
    if (t.timer !== undefined) clearTimeout(t.timer);
    t.timer = undefined;
    if (this.#tenants.get(t.name) === t) this.#tenants.delete(t.name);
    if (t.held === 0) this.#close(t, reason);
  }

  #close(t: Tenant, reason: Release): void {
    const closing = t.app.then(
      async (app) => {
        this.#opened.delete(app);
        // A volatile store's data is its open handle: an idle tenant keeps it (only its isolates go).
        if (reason === 'idle' && isVolatile(this.#config.store)) {
          await app.runtime.close();
          this.#kept.set(t.name, app.store);
        } else {
          await app.close();
        }
        freedMemory();
        this.emit('released', app, reason);
      },
      () => {}, // it never opened: nothing to close
    );
    const done = closing.catch((err: unknown) => this.#log.child({ tenant: t.name }).error(`closing the app failed: ${(err as Error)?.message ?? err}`));
    const settled = done.finally(() => {
      if (this.#closing.get(t.name) === settled) this.#closing.delete(t.name);
    });
    this.#closing.set(t.name, settled);
  }

  /**
   * Logs what is served: each app's (or tenant's) collections, and every invalid model, handler
   * or tenant directory by name, so that an operator sees them before the first request does.
   */
  async summarize(): Promise<void> {
    try {
      const tenantsDir = this.#config.tenants;
      if (tenantsDir === undefined) {
        await this.#report(this.#single!, this.#log);
        return;
      }
      const { tenants, misnamed } = tenantDirectories(resolve(tenantsDir));
      for (const name of misnamed) this.#log.warn(`tenant directory ${JSON.stringify(name)} is not served: ${TENANT_NAME_RULE}`);
      for (const name of tenants) {
        // Checked with a store of its own in memory: the tenant's data is opened on its first request.
        const log = this.#log.child({ tenant: name });
        const store = await openStore('sqlite::memory:', name);
        let app: App;
        try {
          app = new App(name, join(resolve(tenantsDir), name), store, this.#runtime, this.#config.limits, fetchPrivateOf(this.#config), new Logger(() => {}));
        } catch (err) {
          await store.close();
          log.warn(`${name}: ${(err as Error).message}`);
          continue;
        }
        try {
          await this.#report(app, log);
        } finally {
          await app.close();
        }
      }
      const n = tenants.length + misnamed.length;
      this.#log.info(`${n} tenant director${n === 1 ? 'y' : 'ies'} in ${resolve(tenantsDir)}`);
    } finally {
      this.#checked = true;
    }
  }

  async #report(app: App, log: Logger): Promise<void> {
    const r = await app.check();
    log.info(`${app.name || 'app'}: ${r.collections.length ? `serves ${r.collections.join(', ')}` : 'serves no collection'}${r.problems.length ? `; ${r.problems.length} problem(s)` : ''}`);
    for (const p of r.problems) log.warn(p);
    for (const w of r.warnings) log.info(w);
  }

  /** Why requests cannot be served yet, or undefined when they can (`/readyz`). */
  async ready(): Promise<string | undefined> {
    if (!this.#checked) return 'start-up checks are running';
    const tenants = [...this.#tenants.values()];
    // Held while pinged, so that an idle release does not close a store under the probe.
    for (const t of tenants) t.held++;
    try {
      const apps = [...(this.#single ? [Promise.resolve(this.#single)] : []), ...tenants.map((t) => t.app)];
      const results = await Promise.allSettled(apps.map(async (a) => (await a).store.ping()));
      // No tenant open (none asked for yet, or the last one could not open its store): the
      // database the tenants use is asked itself, so that /readyz does not say ready without it.
      if (apps.length === 0 && this.#sharedStore()) results.push(...(await Promise.allSettled([this.#pingSharedStore()])));
      return results.some((r) => r.status === 'rejected') ? 'the store cannot be reached' : undefined;
    } finally {
      for (const t of tenants) this.#letGo(t, false);
    }
  }

  /** Isolates alive in every open app. */
  isolates(): number {
    // The single app is among the opened apps: counted there once.
    let n = 0;
    for (const app of this.#opened) n += app.runtime.isolates();
    return n;
  }

  /** Tenants open now (in the registry, opened or opening): what an idle release takes away. */
  openTenants(): string[] {
    return [...this.#tenants.keys()];
  }

  /** Apps opened so far and not closed (tenant mode opens on first request). */
  #opened = new Set<App>();

  /** Stops the handlers running in every open app (shutdown, once its grace is over): their requests fail. */
  stopHandlers(): void {
    for (const app of this.#opened) {
      void app.runtime.close().catch((err: unknown) => this.#log.error(`stopping the handlers of ${app.name || 'app'} failed: ${(err as Error)?.message ?? err}`));
    }
  }

  async close(): Promise<void> {
    this.#stopped = true;
    for (const t of this.#tenants.values()) if (t.timer !== undefined) clearTimeout(t.timer);
    const apps = [...(this.#single ? [Promise.resolve(this.#single)] : []), ...[...this.#tenants.values()].map((t) => t.app)];
    await Promise.allSettled(apps.map(async (a) => (await a).close()));
    await Promise.allSettled(this.#closing.values());
    await Promise.allSettled([...this.#kept.values()].map((s) => s.close()));
    this.#kept.clear();
  }
}
