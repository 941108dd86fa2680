// Seeded databases for the bench: `employees` members with varied values, written through the store.

import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModel } from '../src/model/load.ts';
import type { Model } from '../src/model/types.ts';
import { openStore } from '../src/store/open.ts';
import { employee, rng } from './data.ts';

export function readModel(file: string): Model {
  const loaded = loadModel(file, readFileSync(file, 'utf8'));
  if (!loaded.ok) throw new Error(`${file}: ${loaded.reason}`);
  return loaded.model;
}

/**
 * Seeded database files, one per (model file, size), made once per run in `scratch` and copied
 * for every server that uses them. `scratch` should be a tmpfs (/dev/shm): the store fsyncs
 * every insert, which costs nothing there; the copies go to `dataDir` on a real disk, so the
 * servers' writes are durable writes.
 */
export class Seeds {
  readonly #made = new Map<string, string>();
  readonly #scratch: string;
  readonly #dataDir: string;
  #copies = 0;

  constructor(scratch: string, dataDir: string) {
    this.#scratch = scratch;
    this.#dataDir = dataDir;
  }

  /** A fresh database file for one server with `members` members of the model in `modelFile`. */
  async copy(modelFile: string, members: number, log: (line: string) => void): Promise<string> {
    const key = `${modelFile}#${members}`;
    let source = this.#made.get(key);
    if (source === undefined) {
      source = join(this.#scratch, `seed-${this.#made.size}-${members}.sqlite`);
      const t0 = performance.now();
      await seed(source, readModel(modelFile), members);
      log(`seeded ${members} members in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      this.#made.set(key, source);
    }
    const target = join(this.#dataDir, `svc-${++this.#copies}.sqlite`);
    copyFileSync(source, target);
    return target;
  }
}

/** Inserts in flight at once while seeding. */
const SEED_BATCH = 500;

/** The first `updated` of a seeded collection; member i's is i milliseconds later, in creation order. */
const SEED_EPOCH = Date.UTC(2025, 0, 1);

/**
 * A json-server database file (`{"employees": [...]}`) with the members `seed` writes to svc's
 * store, in the same order, with the same ids (as strings: json-server's ids are strings) and
 * `updated` values, so both serve the same members and pages.
 */
export function writeJsonServerSeed(file: string, members: number): void {
  const next = rng(members);
  const employees = Array.from({ length: members }, (_, i) => ({
    id: String(i + 1),
    updated: new Date(SEED_EPOCH + i).toISOString(),
    ...employee(next, i),
  }));
  writeFileSync(file, JSON.stringify({ employees }));
}

async function seed(file: string, model: Model, members: number): Promise<void> {
  if (existsSync(file)) throw new Error(`${file} exists`);
  const store = await openStore(`sqlite:${file}`, '');
  try {
    await store.ensure(model);
    const next = rng(members);
    // `updated` a millisecond apart, in creation order, as a live collection would have.
    const t0 = SEED_EPOCH;
    // Inserts in flight together, so a store with group commit writes them in one transaction.
    for (let from = 0; from < members; from += SEED_BATCH) {
      const batch: Promise<unknown>[] = [];
      for (let i = from; i < Math.min(members, from + SEED_BATCH); i++) {
        batch.push(store.insert(model, employee(next, i), new Date(t0 + i).toISOString()));
      }
      await Promise.all(batch);
    }
  } finally {
    // Closing the last connection checkpoints the WAL into the file, so the file alone is the copy.
    await store.close();
  }
}
