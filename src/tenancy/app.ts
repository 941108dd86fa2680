// An app (tenant): its directory, models, handler scripts, store and handler runtime.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { ServedApp } from '../exchange/app.ts';
import type { Limits } from '../exchange/limits.ts';
import type { Logger } from '../exchange/log.ts';
import type { HandlerRuntime, RuntimeFactory } from '../exchange/runtime.ts';
import { ModelRegistry } from '../model/registry.ts';
import type { Store } from '../store/store.ts';

export class App implements ServedApp {
  readonly name: string;
  readonly dir: string;
  readonly models: ModelRegistry;
  readonly store: Store;
  readonly runtime: HandlerRuntime;

  constructor(name: string, dir: string, store: Store, runtime: RuntimeFactory, limits: Limits, log: Logger) {
    this.name = name;
    this.dir = dir;
    this.store = store;
    this.models = new ModelRegistry(join(dir, 'models'), (message) => log.warn(message));
    this.runtime = runtime({ name, dir, limits, log });
  }

  /**
   * The handler script of a collection (`resources/<c>.ts`, else `.js`), or undefined when
   * HTTP access is off. Checked on every request so that adding or removing a script takes
   * effect at once (README "Hot reload").
   */
  handlerFile(collection: string): string | undefined {
    for (const ext of ['.ts', '.js']) {
      const file = join(this.dir, 'resources', collection + ext);
      const st = statSync(file, { throwIfNoEntry: false });
      if (st?.isFile()) return file;
    }
    return undefined;
  }

  async close(): Promise<void> {
    await this.runtime.close();
    await this.store.close();
  }
}
