// The models of one app, reloaded when their files change (checked on use, so no restart is needed).

import { readdirSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { SvcError } from '../errors.ts';
import { AppFileError, readAppFile } from './app-file.ts';
import { statNow } from './file-stat.ts';
import { COLLECTION_NAME, loadModel, MAX_MODEL_BYTES, type LoadResult } from './load.ts';
import type { Model } from './types.ts';

interface Entry {
  /** The file's FileStat key when it was read. */
  key: string;
  result: LoadResult;
}

export interface ModelProblem {
  readonly file: string;
  readonly reason: string;
}

export class ModelRegistry {
  readonly dir: string;
  /** `dir` and a separator: a model's file is this, its name and `.json` (a name has no `/` or `..`, see COLLECTION_NAME). */
  readonly #prefix: string;
  readonly #warn: (message: string) => void;
  #cache = new Map<string, Entry>();

  /** `dir` is the app's `models/`; `warn` is told of each model file rejected, once per version of the file. */
  constructor(dir: string, warn: (message: string) => void) {
    this.dir = dir;
    this.#prefix = join(dir, sep);
    this.#warn = warn;
  }

  /** Only for a name that matches COLLECTION_NAME. */
  #load(name: string): LoadResult | undefined {
    // Not path.join: this runs on every request, and the name needs no normalising.
    const file = `${this.#prefix}${name}.json`;
    const st = statNow(file);
    if (!st?.isFile) {
      this.#cache.delete(name);
      return undefined;
    }
    const key = st.key;
    const hit = this.#cache.get(name);
    if (hit?.key === key) return hit.result;
    let result: LoadResult;
    try {
      // Read as a file of the app (app-file.ts): the bound is the app's directory, not `models/`,
      // which may be a link to beta's. The stat above only finds whether there is a model: the
      // file may be anything by the time it is read.
      result = loadModel(file, readAppFile(dirname(this.dir), `models/${name}.json`, MAX_MODEL_BYTES));
    } catch (e) {
      if (!(e instanceof AppFileError)) throw e;
      result = { ok: false, reason: `the file ${e.detail}` };
    }
    if (!result.ok) this.#warn(`model models/${name}.json rejected: ${result.reason}`);
    this.#cache.set(name, { key, result });
    return result;
  }

  /** The model named `name`; undefined when there is no such file. Throws when the file is invalid. */
  get(name: string): Model | undefined {
    if (!COLLECTION_NAME.test(name)) return undefined;
    const result = this.#load(name);
    if (!result) return undefined;
    if (!result.ok) throw new SvcError('model-invalid', `models/${name}.json is invalid: ${result.reason}`);
    return result.model;
  }

  /** Every valid model, ordered by name, and every invalid model file with its reason. */
  all(): { models: Model[]; problems: ModelProblem[] } {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
    } catch {
      names = [];
    }
    const models: Model[] = [];
    const problems: ModelProblem[] = [];
    for (const name of names) {
      const file = `models/${name}.json`;
      if (!COLLECTION_NAME.test(name) || name === 'types') {
        problems.push({ file, reason: `the name "${name}" must match [A-Za-z][A-Za-z0-9_-]* and not be "types"` });
        continue;
      }
      const result = this.#load(name);
      if (!result) continue;
      if (result.ok) models.push(result.model);
      else problems.push({ file, reason: result.reason });
    }
    return { models, problems };
  }
}
