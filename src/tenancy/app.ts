// An app (tenant): its directory, models, handler scripts, store and handler runtime.

import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { SvcError } from '../errors.ts';
import type { ServedApp } from '../exchange/app.ts';
import type { FetchPrivate } from '../exchange/fetch-private.ts';
import type { Limits } from '../exchange/limits.ts';
import type { Logger } from '../exchange/log.ts';
import type { HandlerRuntime, RuntimeFactory } from '../exchange/runtime.ts';
import { statNow } from '../model/file-stat.ts';
import { COLLECTION_NAME } from '../model/load.ts';
import { ModelRegistry, type ModelProblem } from '../model/registry.ts';
import type { Model } from '../model/types.ts';
import type { AppSettings } from '../exchange/settings.ts';
import type { Store } from '../store/store.ts';
import { loadSettings } from './settings.ts';

export interface AppCheck {
  readonly models: number;
  readonly handlers: number;
  /** Collections served over HTTP: a valid model and a handler that compiles. */
  readonly collections: readonly string[];
  /** Handler scripts that compile (absolute paths), with a model or not: what `svc check --types` checks. */
  readonly compiled: readonly string[];
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

export class App implements ServedApp {
  readonly name: string;
  readonly dir: string;
  readonly models: ModelRegistry;
  readonly store: Store;
  readonly runtime: HandlerRuntime;
  readonly settings: AppSettings;
  /** The resources directory and a separator (handlerFile). */
  readonly #resources: string;

  /**
   * Throws SvcError `app-settings-invalid` for a bad `svc.json` (read once, when the app opens).
   * `limits` and `fetchPrivate` are the server's: the app may lower the first, not widen the second.
   */
  constructor(name: string, dir: string, store: Store, runtime: RuntimeFactory, limits: Limits, fetchPrivate: FetchPrivate, log: Logger) {
    this.name = name;
    this.dir = dir;
    this.store = store;
    this.models = new ModelRegistry(join(dir, 'models'), (message) => log.warn(message));
    this.#resources = join(dir, 'resources', sep);
    this.settings = loadSettings(dir, limits, fetchPrivate);
    this.runtime = runtime({ name, dir, limits: this.settings.limits, log });
  }

  /**
   * The handler script of a collection (`resources/<c>.ts`, else `.js`), or undefined when
   * HTTP access is off. Checked on every request so that adding or removing a script takes
   * effect at once (README "Hot reload").
   */
  handlerFile(collection: string): string | undefined {
    // A collection name has no `/` or `..`, so the path needs no path.join (which costs on every request).
    if (!COLLECTION_NAME.test(collection)) return undefined;
    for (const ext of ['.ts', '.js']) {
      const file = this.#resources + collection + ext;
      // Anything there is the handler: a named pipe, a directory, or a link that leads to itself,
      // is one that does not compile (its reading says why, README "Tenants"), not a collection that is off.
      if (statNow(file)) return file;
    }
    return undefined;
  }

  /**
   * Validates every model and compiles every handler, as `svc check` and the start-up summary
   * report them: problems (a model or handler that cannot serve) and warnings (a handler without
   * a model, a model without a handler).
   */
  async check(): Promise<AppCheck> {
    let all: { models: Model[]; problems: readonly ModelProblem[] };
    let over: string | undefined;
    try {
      all = await this.models.all();
    } catch (e) {
      if (!(e instanceof SvcError)) throw e;
      // Too many files in models/ to check: said once, and no model is checked.
      over = e.message;
      all = { models: [], problems: [] };
    }
    const { models, problems: bad } = all;
    const problems = [...(over === undefined ? [] : [over]), ...bad.map((p) => `${p.file}: ${p.reason}`)];
    const warnings: string[] = [];
    let scripts: string[] = [];
    try {
      scripts = readdirSync(join(this.dir, 'resources')).filter((f) => /^[A-Za-z][A-Za-z0-9_-]*\.(ts|js)$/.test(f)).sort();
    } catch {
      // An app without resources/ serves nothing, which is not an error.
    }
    const served: string[] = [];
    const compiled: string[] = [];
    for (const script of scripts) {
      const collection = script.replace(/\.(ts|js)$/, '');
      const file = join(this.dir, 'resources', script);
      const error = await this.runtime.check(file);
      if (error === undefined) compiled.push(file);
      const hasModel = models.some((m) => m.name === collection);
      // The message names the file and line itself: the error may be in a file the script imports.
      if (error !== undefined) problems.push(error);
      else if (hasModel) served.push(collection);
      else if (over === undefined && !bad.some((p) => p.file === `models/${collection}.json`)) {
        warnings.push(`resources/${script}: warning: no model models/${collection}.json, so this handler serves nothing`);
      }
    }
    for (const m of models) {
      if (!scripts.some((s) => s.replace(/\.(ts|js)$/, '') === m.name)) {
        warnings.push(`models/${m.name}.json: warning: no handler resources/${m.name}.ts, so this collection is not served over HTTP (the model API can still use it)`);
      }
    }
    return { models: models.length, handlers: scripts.length, collections: [...new Set(served)], compiled, problems, warnings };
  }

  async close(): Promise<void> {
    this.models.close();
    await this.runtime.close();
    await this.store.close();
  }
}
