// Apps by Host: one app in single-app mode; in tenant mode a sub-directory per tenant, loaded on first use.

import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import type { Logger } from '../exchange/log.ts';
import type { RuntimeFactory } from '../exchange/runtime.ts';
import { openStore } from '../store/open.ts';
import { App } from './app.ts';

const TENANT_NAME = /^[a-z0-9-]+$/;

export class Apps {
  #config: Config;
  #runtime: RuntimeFactory;
  #log: Logger;
  #single: App | undefined;
  #tenants = new Map<string, Promise<App>>();

  constructor(config: Config, runtime: RuntimeFactory, log: Logger) {
    this.#config = config;
    this.#runtime = runtime;
    this.#log = log;
  }

  async #open(name: string, dir: string, storeUri: string): Promise<App> {
    const store = await openStore(storeUri, name);
    return new App(name, dir, store, this.#runtime, this.#config.limits, name === '' ? this.#log : this.#log.child({ tenant: name }));
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
        void gone.then((app) => app.close()).catch(() => {});
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

  async close(): Promise<void> {
    const apps = [...(this.#single ? [Promise.resolve(this.#single)] : []), ...this.#tenants.values()];
    await Promise.allSettled(apps.map(async (a) => (await a).close()));
  }
}
