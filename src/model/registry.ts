// The models of one app, reloaded when their files change (checked on use, so no restart is needed).

import { opendirSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { SvcError } from '../errors.ts';
import { AppFileError, readAppFile } from './app-file.ts';
import { JsonParts, MAX_DOCUMENT_BYTES, Slices } from './documents.ts';
import { statNow } from './file-stat.ts';
import { COLLECTION_NAME, loadModel, MAX_MODEL_BYTES, type LoadResult } from './load.ts';
import { typeMetadata } from './metadata.ts';
import type { Model } from './types.ts';

/**
 * Entries `models/` may hold (model files, and anything else there), 1,000. What reads every model
 * (`GET /resources/types`, the OpenAPI document, `svc check`) stats each model file on every
 * request, on the event loop that every tenant shares: ~3 µs each, so 3 ms at the bound, where with
 * 10,000 files each such request held it for ~180 ms (bench/many-models.ts). Every entry counts, so that the
 * directory is never read further than this, whatever else a tenant puts there. Over it those
 * requests are 500 `models-over-limit`; each collection still serves (it reads its own file only).
 */
export const MAX_MODEL_ENTRIES = 1000;

/**
 * Bytes of model files whose models `all()` reads for one app, 32 MiB: past it, what reads every
 * model (the type metadata, the OpenAPI document) is 500 `models-over-limit`, having read no more.
 * Their documents hold at most 16 MiB each anyway (documents.ts); a parsed model takes about 1.05
 * to 1.6 times its file's bytes (measured), so 1,000 model files of 1 MiB each would hold 1 to 1.6 GB
 * of one app's.
 */
export const MAX_APP_MODEL_BYTES = 32 * 1024 * 1024;

/**
 * Bytes of model files whose parsed models the process keeps, across every app, 256 MiB: past it
 * the least recently used are let go, and read again when next used (a model file of 1 MiB takes
 * about 10 ms to read). One app's collections asked for one by one, 1,000 models of 1 MiB, would
 * otherwise hold 1 to 1.6 GB in every process, toward --max-rss.
 */
export const MAX_KEPT_MODEL_BYTES = 256 * 1024 * 1024;

/**
 * The parsed models the process keeps, by the bytes of their files, least recently used first:
 * shared by every app's registry, so that the bound holds for the process however many apps it serves.
 */
export class KeptModels {
  readonly #maxBytes: number;
  /** Each kept model's bytes and how to let it go, least recently used first. */
  readonly #kept = new Map<object, { bytes: number; drop: () => void }>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Keeps `token` (a registry's entry) of `bytes`; `drop` lets it go. Others may be let go to make room. */
  keep(token: object, bytes: number, drop: () => void): void {
    this.forget(token);
    this.#kept.set(token, { bytes, drop });
    this.#bytes += bytes;
    for (const [other, k] of this.#kept) {
      if (this.#bytes <= this.#maxBytes || other === token) break;
      this.forget(other);
      k.drop();
    }
  }

  /** `token` was used: it is let go last. */
  touch(token: object): void {
    const k = this.#kept.get(token);
    if (k === undefined) return;
    this.#kept.delete(token);
    this.#kept.set(token, k);
  }

  forget(token: object): void {
    const k = this.#kept.get(token);
    if (k === undefined) return;
    this.#kept.delete(token);
    this.#bytes -= k.bytes;
  }
}

const PROCESS_KEPT_MODELS = new KeptModels(MAX_KEPT_MODEL_BYTES);

/**
 * A directory changed this recently (ms) may change again within the same tick of the file
 * system's clock, leaving its stat as it was: its listing is not kept (git's "racily clean" case).
 */
const RACY_MS = 2000;

interface Entry {
  /** The file's FileStat key when it was read. */
  key: string;
  result: LoadResult;
}

export interface ModelProblem {
  readonly file: string;
  readonly reason: string;
}

export interface AllModels {
  /** Every valid model, ordered by name. */
  readonly models: Model[];
  /** Every invalid model file with its reason. */
  readonly problems: ModelProblem[];
  /** Changes whenever the models or problems may have: the same state, the same models and problems. */
  readonly state: string;
}

export class ModelRegistry {
  readonly dir: string;
  /** `dir` and a separator: a model's file is this, its name and `.json` (a name has no `/` or `..`, see COLLECTION_NAME). */
  readonly #prefix: string;
  readonly #warn: (message: string) => void;
  #cache = new Map<string, Entry>();
  /** The `.json` names of `models/` as of the directory's key, or undefined when it holds too many entries. */
  #listing: { key: string; names: readonly string[] | undefined } | undefined;
  /** The JSON of GET /resources/types as of a state of all(), or the error it is. */
  #types: { state: string; json: Promise<Buffer> } | undefined;

  readonly #kept: KeptModels;

  /**
   * `dir` is the app's `models/`; `warn` is told of each model file rejected, once per version of
   * the file; `kept` bounds the models kept (by default the process's, shared by every app).
   */
  constructor(dir: string, warn: (message: string) => void, kept: KeptModels = PROCESS_KEPT_MODELS) {
    this.dir = dir;
    this.#prefix = join(dir, sep);
    this.#warn = warn;
    this.#kept = kept;
  }

  /** Only for a name that matches COLLECTION_NAME. */
  #load(name: string): LoadResult | undefined {
    // Not path.join: this runs on every request, and the name needs no normalising.
    const file = `${this.#prefix}${name}.json`;
    const st = statNow(file);
    const hit = this.#cache.get(name);
    if (!st) {
      if (hit) this.#forget(name, hit);
      return undefined;
    }
    const key = st.key;
    if (hit?.key === key) {
      this.#kept.touch(hit);
      return hit.result;
    }
    let result: LoadResult;
    try {
      // Read as a file of the app (app-file.ts): the bound is the app's directory, not `models/`,
      // which may be a link to beta's. The stat above only finds whether there is a model: the
      // file may be anything by the time it is read. Something there that is not a regular file
      // (a directory, a named pipe, a link that leads to itself) is a model file that is invalid,
      // and the reading says why.
      result = loadModel(file, readAppFile(dirname(this.dir), `models/${name}.json`, MAX_MODEL_BYTES), key);
    } catch (e) {
      if (!(e instanceof AppFileError)) throw e;
      result = { ok: false, reason: `the file ${e.detail}` };
    }
    if (!result.ok) this.#warn(`model models/${name}.json rejected: ${result.reason}`);
    if (hit) this.#forget(name, hit);
    const entry: Entry = { key, result };
    this.#cache.set(name, entry);
    // Let go by the process's bound: read again when next used (a rejected file warns again then).
    this.#kept.keep(entry, st.size, () => {
      if (this.#cache.get(name) === entry) this.#cache.delete(name);
    });
    return result;
  }

  /** The app closed: its models are let go (the process's bound keeps none of a closed app's). */
  close(): void {
    for (const [name, entry] of this.#cache) this.#forget(name, entry);
    this.#types = undefined;
  }

  #forget(name: string, entry: Entry): void {
    this.#kept.forget(entry);
    if (this.#cache.get(name) === entry) this.#cache.delete(name);
  }

  /** The model named `name`; undefined when there is no such file. Throws when the file is invalid. */
  get(name: string): Model | undefined {
    if (!COLLECTION_NAME.test(name)) return undefined;
    const result = this.#load(name);
    if (!result) return undefined;
    if (!result.ok) throw new SvcError('model-invalid', `models/${name}.json is invalid: ${result.reason}`);
    return result.model;
  }

  /**
   * The names of the `.json` files of `models/`, sorted; none when there is no such directory.
   * Read again only when the directory changed. Throws SvcError `models-over-limit` past
   * MAX_MODEL_ENTRIES entries, having read no more of it.
   */
  #names(): readonly string[] {
    const st = statNow(this.dir);
    if (!st?.isDirectory) return [];
    let listing = this.#listing?.key === st.key ? this.#listing : undefined;
    if (!listing) {
      listing = { key: st.key, names: this.#read() };
      this.#listing = Date.now() - st.changedMs < RACY_MS ? undefined : listing;
    }
    if (listing.names === undefined) {
      throw new SvcError(
        'models-over-limit',
        `models/ holds more than ${MAX_MODEL_ENTRIES} entries, the most an app may have there (every file counts): remove model files, or other files, from it. Each collection still serves; the type metadata of every model, the OpenAPI document and svc check do not.`,
      );
    }
    return listing.names;
  }

  /** The sorted `.json` names of `models/`; undefined past MAX_MODEL_ENTRIES entries (no more is read). */
  #read(): readonly string[] | undefined {
    const names: string[] = [];
    let entries = 0;
    let dir;
    try {
      dir = opendirSync(this.dir);
    } catch {
      return names;
    }
    try {
      for (let e = dir.readSync(); e !== null; e = dir.readSync()) {
        if (++entries > MAX_MODEL_ENTRIES) return undefined;
        if (e.name.endsWith('.json')) names.push(e.name.slice(0, -5));
      }
    } finally {
      dir.closeSync();
    }
    return names.sort();
  }

  /**
   * Every valid model, ordered by name, and every invalid model file with its reason, in slices of
   * work (documents.ts), so that other requests run between them (a first read of many files takes
   * seconds). Throws SvcError `models-over-limit` when `models/` holds too many entries.
   */
  async all(): Promise<AllModels> {
    const names = this.#names();
    const models: Model[] = [];
    const problems: ModelProblem[] = [];
    const state: string[] = [];
    const slices = new Slices();
    let bytes = 0;
    for (const name of names) {
      const file = `models/${name}.json`;
      if (!COLLECTION_NAME.test(name) || name === 'types') {
        problems.push({ file, reason: `the name "${name}" must match [A-Za-z][A-Za-z0-9_-]* and not be "types"` });
        state.push(name);
        continue;
      }
      bytes += statNow(`${this.#prefix}${name}.json`)?.size ?? 0;
      if (bytes > MAX_APP_MODEL_BYTES) {
        throw new SvcError(
          'models-over-limit',
          `The model files of models/ hold more than ${MAX_APP_MODEL_BYTES} bytes (32 MiB), the most the server reads for one app: remove model files, or make them smaller. Each collection still serves; the type metadata of every model, the OpenAPI document and svc check do not.`,
        );
      }
      const result = this.#load(name);
      state.push(`${name}\0${this.#cache.get(name)?.key ?? '-'}`);
      if (result?.ok) models.push(result.model);
      else if (result) problems.push({ file, reason: result.reason });
      await slices.pause();
    }
    return { models, problems, state: state.join('\n') };
  }

  /**
   * The JSON of `GET /resources/types` (UTF-8): every valid model's type metadata, ordered by
   * name. Built again only when the models changed, and kept as bytes, which a response sends
   * without encoding them again. Throws SvcError `models-over-limit` over MAX_MODEL_ENTRIES or
   * MAX_DOCUMENT_BYTES.
   */
  async typesJson(): Promise<Buffer> {
    const { models, state } = await this.all();
    if (this.#types?.state !== state) this.#types = { state, json: typesJson(models) };
    return this.#types.json;
  }
}

/** The JSON array of the type metadata of `models`, built in slices. */
async function typesJson(models: readonly Model[]): Promise<Buffer> {
  const json = new JsonParts(() => {
    throw new SvcError(
      'models-over-limit',
      `The type metadata of this app's models is over ${MAX_DOCUMENT_BYTES} bytes (16 MiB), the most the server builds: declare fewer models or fields, or shorter labels and descriptions.`,
    );
  });
  const slices = new Slices();
  json.add('[');
  for (const [i, model] of models.entries()) {
    json.add(`${i === 0 ? '' : ','}${JSON.stringify(typeMetadata(model))}`);
    await slices.pause();
  }
  json.add(']');
  return json.bytes();
}
