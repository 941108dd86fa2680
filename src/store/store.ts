// The store interface: every implementation (node:sqlite, MongoDB) runs test/store/conformance.ts.

import type { Filter, Member, MemberData, Model, Query } from '../model/types.ts';

/** Result of a conditional write. */
export type WriteResult<T> = { ok: true; value: T } | { ok: false; reason: 'not-found' | 'conflict' };

/**
 * The data of one app (tenant). Queries run inside the engine: filtering, ordering, slicing and
 * counting never load a whole collection into the process.
 */
export interface Store {
  /** Create or migrate the storage of a model (table and indexes); idempotent and cheap to repeat. */
  ensure(model: Model): Promise<void>;
  /** Members matching `query`, in its order, streamed. */
  list(model: Model, query: Query): AsyncIterable<Member>;
  /** How many members match the filters; with no filters it reads a count the store keeps. */
  count(model: Model, filters: readonly Filter[]): Promise<number>;
  get(model: Model, id: number): Promise<Member | null>;
  /** Assigns the next id (1, 2, …, never reused) and stores `updated` as given. */
  insert(model: Model, data: MemberData, updated: string): Promise<Member>;
  /**
   * Replaces every declared field of member `id` with `data` (absent fields become absent) and
   * sets `updated`. With `ifUpdated`, writes only while the stored `updated` still equals it.
   */
  replace(model: Model, id: number, data: MemberData, updated: string, ifUpdated?: string): Promise<WriteResult<Member>>;
  /** Deletes member `id`; with `ifUpdated`, only while the stored `updated` still equals it. */
  delete(model: Model, id: number, ifUpdated?: string): Promise<WriteResult<void>>;
  /** Resolves when the store can serve (`/readyz`); rejects, quickly, when it cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

