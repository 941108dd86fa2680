// For tests of one snapshot: a SQLite file store, another connection to its file, and a hook that
// makes that connection commit exactly when the store runs a statement of a given shape (between
// two of the store's reads), so that an interleaving a scheduler would give only sometimes happens
// every run.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Store } from '../../src/store/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { Statements } from '../../src/store/sqlite/statements.ts';

export interface CommitBetween {
  readonly store: Store;
  /** Another connection to the store's file. */
  readonly other: DatabaseSync;
  /** The next time the store runs `Statements.row` with SQL matching `pattern`, `commit` runs first (on `other`), once. */
  commitWhen(pattern: RegExp, commit: (other: DatabaseSync) => void): void;
  /** Whether a `commitWhen` is still waiting for its statement. */
  readonly armed: boolean;
}

/** A store on a new file and another connection to it, removed (and the hook undone) when `t` ends. */
export async function commitBetween(t: { teardown(fn: () => unknown): void }): Promise<CommitBetween> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-snapshot-'));
  const path = join(dir, 'data.db');
  const store = await openSqliteStore(`sqlite:${path}`, '');
  const other = new DatabaseSync(path);
  let pending: { pattern: RegExp; commit: (other: DatabaseSync) => void } | undefined;
  const row = Statements.prototype.row;
  Statements.prototype.row = function (sql, params) {
    if (pending && pending.pattern.test(sql)) {
      const { commit } = pending;
      pending = undefined;
      commit(other);
    }
    return row.call(this, sql, params);
  };
  t.teardown(async () => {
    Statements.prototype.row = row;
    other.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    store,
    other,
    commitWhen(pattern, commit) {
      pending = { pattern, commit };
    },
    get armed() {
      return pending !== undefined;
    },
  };
}
