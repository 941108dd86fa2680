// The state of an app's files as of this turn of the event loop. Models, handler scripts and
// tenant directories are checked on every request, so that a change takes effect on the next
// request without a restart (SPEC §8, §10); the requests served in one turn share one `stat` of
// each file. A request that arrives after a change is read in a later turn, so it sees the change.

import { statSync } from 'node:fs';

export interface FileStat {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  /** mtime, ctime, size and inode: any change of the file changes it. */
  readonly key: string;
  /** The later of mtime and ctime, ms since the epoch: a key read this recently may not show a change made in the same clock tick. */
  readonly changedMs: number;
  /** Bytes (0 for what cannot be stat'd). */
  readonly size: number;
}

const memo = new Map<string, FileStat | null>();
let clearing = false;

/**
 * `path`'s state now (this turn); undefined when nothing is there or it cannot be a file name (too
 * long). Something there that cannot be stat'd is neither file nor directory, its key `error:<code>`.
 */
export function statNow(path: string): FileStat | undefined {
  const known = memo.get(path);
  if (known !== undefined) return known ?? undefined;
  const state = stat(path);
  memo.set(path, state);
  if (!clearing) {
    clearing = true;
    setImmediate(() => {
      memo.clear();
      clearing = false;
    });
  }
  return state ?? undefined;
}

/**
 * `path`'s state at this instant, not as of this turn: for a decision that must hold against a
 * change made since the turn began (a store's migration to a model, under the database's lock).
 */
export function statFresh(path: string): FileStat | undefined {
  return stat(path) ?? undefined;
}

function stat(path: string): FileStat | null {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? { isFile: st.isFile(), isDirectory: st.isDirectory(), key: `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}`, changedMs: Math.max(st.mtimeMs, st.ctimeMs), size: st.size } : null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // A name too long for a file name (a URL segment can be kilobytes) names nothing, nor does a
    // path through a file (`models` a file: `models/x.json` is ENOTDIR).
    if (code === 'ENAMETOOLONG' || code === 'ENOTDIR') return null;
    // Anything else (a link that leads to itself, ELOOP; a directory the server may not search,
    // EACCES) is there, but is no file: whoever reads it says why (app-file.ts), rather than the
    // request failing here as an internal error.
    return { isFile: false, isDirectory: false, key: `error:${code}`, changedMs: 0, size: 0 };
  }
}
