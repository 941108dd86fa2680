// Apps by Host: one app in single-app mode; in tenant mode a sub-directory per tenant, loaded on first use.

import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import { Logger } from '../exchange/log.ts';
import type { RuntimeFactory } from '../exchange/runtime.ts';
import { SvcError } from '../errors.ts';
import { openStore } from '../store/open.ts';
import { storeUnavailable, type Store } from '../store/store.ts';
import { App } from './app.ts';

const TENANT_NAME = /^[a-z0-9-]+$/;

export class Apps {
  #config: Config;
  #runtime: RuntimeFactory;
  #log: Logger;
  #single: App | undefined;
  #tenants = new Map<string, Promise<App>>();
  /** Start-up checks are done (see summarize()). */
  #checked = false;

  constructor(config: Config, runtime: RuntimeFactory, log: Logger) {
    this.#config = config;
    this.#runtime = runtime;
    this.#log = log;
  }

  async #open(name: string, dir: string, storeUri: string): Promise<App> {
    let store: Store;
    try {
      // With --wait-for-store the store connects on first use; /readyz says when it can answer.
      store = await openStore(storeUri, name, { lazy: this.#config.waitForStore });
    } catch (err) {
      // At start-up (single-app mode) the message is the one line the CLI prints; for a tenant's
      // first request it is a 503 that says to retry, with the cause in the log only.
      if (name === '' || err instanceof SvcError) throw err;
      this.#log.child({ tenant: name }).error(`the store cannot be opened: ${(err as Error)?.message ?? err}`);
      throw storeUnavailable(err);
    }
    let app: App;
    try {
      app = new App(name, dir, store, this.#runtime, this.#config.limits, name === '' ? this.#log : this.#log.child({ tenant: name }));
    } catch (err) {
      await store.close();
      throw err;
    }
    this.#opened.add(app);
    return app;
  }

  /** Opens the single app up front (so a bad store URI fails at start-up, not on a request). */
  async start(): Promise<void> {
    if (this.#config.tenants === undefined) this.#single = await this.#open('', resolve(this.#config.app), this.#config.store);
  }

  /** The app for a request's Host; undefined for an unknown tenant. */
  async resolve(host: string): Promise<App | undefined> {
    if (this.#single) return this.#single;
    const tenantsDir = this.#config.tenants;
    if (tenantsDir === undefined) return undefined;
    const name = host.split(/[.:]/)[0]!.toLowerCase();
    if (!TENANT_NAME.test(name)) return undefined;
    const dir = join(resolve(tenantsDir), name);
    // Checked on every request, so that tenants can be added and removed without a restart.
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      const gone = this.#tenants.get(name);
      if (gone) {
        this.#tenants.delete(name);
        void gone
          .then((app) => {
            this.#opened.delete(app);
            return app.close();
          })
          .catch(() => {});
      }
      return undefined;
    }
    let app = this.#tenants.get(name);
    if (!app) {
      app = this.#open(name, dir, this.#config.store);
      this.#tenants.set(name, app);
      app.catch(() => this.#tenants.delete(name));
    }
    return app;
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
      const dirs = readdirSync(resolve(tenantsDir), { withFileTypes: true }).filter((e) => e.isDirectory());
      for (const d of dirs) {
        if (!TENANT_NAME.test(d.name)) {
          this.#log.warn(`tenant directory ${JSON.stringify(d.name)} is not served: tenant names are lower-case letters, digits and '-'`);
          continue;
        }
        // Checked with a store of its own in memory: the tenant's data is opened on its first request.
        const log = this.#log.child({ tenant: d.name });
        const store = await openStore('sqlite::memory:', d.name);
        let app: App;
        try {
          app = new App(d.name, join(resolve(tenantsDir), d.name), store, this.#runtime, this.#config.limits, new Logger(() => {}));
        } catch (err) {
          await store.close();
          log.warn(`${d.name}: ${(err as Error).message}`);
          continue;
        }
        try {
          await this.#report(app, log);
        } finally {
          await app.close();
        }
      }
      this.#log.info(`${dirs.length} tenant director${dirs.length === 1 ? 'y' : 'ies'} in ${resolve(tenantsDir)}`);
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
    const apps = [...(this.#single ? [Promise.resolve(this.#single)] : []), ...this.#tenants.values()];
    const results = await Promise.allSettled(apps.map(async (a) => (await a).store.ping()));
    return results.some((r) => r.status === 'rejected') ? 'the store cannot be reached' : undefined;
  }

  /** Isolates alive in every open app. */
  isolates(): number {
    let n = this.#single?.runtime.isolates() ?? 0;
    for (const app of this.#opened) n += app.runtime.isolates();
    return n;
  }

  /** Apps opened so far (tenant mode opens on first request). */
  #opened = new Set<App>();

  async close(): Promise<void> {
    const apps = [...(this.#single ? [Promise.resolve(this.#single)] : []), ...this.#tenants.values()];
    await Promise.allSettled(apps.map(async (a) => (await a).close()));
  }
}
