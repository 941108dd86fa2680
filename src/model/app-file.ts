// Reading a file of an app (svc.json, a model, a handler script or an import of one): the one way
// the server reads what a tenant can write. Only a regular file inside the app directory is read,
// opened without waiting, and never past a bound.

import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';

/** Why a file of an app was not read. */
export type AppFileRefusal = 'missing' | 'outside' | 'not-a-file' | 'too-large' | 'unreadable';

/** A file of an app that was not read; `message` names the file and says what to do. */
export class AppFileError extends Error {
  readonly refusal: AppFileRefusal;
  /** The file as the caller named it, relative to the app directory (`models/notes.json`). */
  readonly file: string;
  /** The message without the file's name: `is over 1 MiB (1048576 bytes), …: make it smaller`. */
  readonly detail: string;

  constructor(refusal: AppFileRefusal, file: string, detail: string) {
    super(`${file} ${detail}`);
    this.name = 'AppFileError';
    this.refusal = refusal;
    this.file = file;
    this.detail = detail;
  }
}

/** Reads after the first, in bytes: a file that grew since fstat is read on in pieces of this. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The text (UTF-8) of `file`, a path relative to the app directory `appDir`, when it is a regular
 * file of the app of at most `maxBytes` bytes; else throws an AppFileError:
 *
 * - `outside`: its real path (every link followed) is not in the app directory. A link to another
 *   tenant's svc.json would make that tenant's `env` this app's; a link to /etc/passwd would show
 *   it through a model's problems.
 * - `not-a-file`: a named pipe, a device or a directory. Opening a FIFO waits for a writer, and the
 *   server reads these files on its event loop: every tenant's requests would wait with it (the
 *   file is opened with O_NONBLOCK, so the open itself never waits); /dev/zero never ends.
 * - `too-large`: over `maxBytes`, by its size or by what it held when read (it may grow while
 *   read); no more than `maxBytes` + 1 bytes of it are read, so a 1 GB file costs no more than a
 *   file at the bound.
 * - `missing` (nothing there, or a dangling link), `unreadable` (any other error, EACCES say).
 *
 * The file is opened by its real path, without following a link there (O_NOFOLLOW); on Linux the
 * path the kernel opened is checked again, so a directory of the path swapped for a link between
 * the check and the open is refused as well.
 */
export function readAppFile(appDir: string, file: string, maxBytes: number): string {
  let fd: number | undefined;
  try {
    const inside = realpathSync(appDir) + sep;
    const real = realpathSync(join(appDir, file));
    if (!real.startsWith(inside)) throw outside(file);
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    if (!openedPath(fd, real).startsWith(inside)) throw outside(file);
    const st = fstatSync(fd);
    if (!st.isFile()) throw new AppFileError('not-a-file', file, 'is not a regular file (a named pipe, a device or a directory?): make it one');
    if (st.size > maxBytes) throw tooLarge(file, maxBytes);
    const chunks: Buffer[] = [];
    let length = 0;
    // The first read asks for one byte more than fstat saw: a file that grew since is read on.
    for (let want = Math.min(st.size, maxBytes) + 1; ; want = CHUNK_BYTES) {
      const chunk = Buffer.allocUnsafe(Math.min(want, maxBytes + 1 - length));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      length += n;
      if (length > maxBytes) throw tooLarge(file, maxBytes);
    }
    return Buffer.concat(chunks, length).toString('utf8');
  } catch (err) {
    throw refused(err, file);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The path of what `fd` holds, as the kernel names it (Linux); elsewhere, the path it was opened by. */
function openedPath(fd: number, opened: string): string {
  if (process.platform !== 'linux') return opened;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return opened; // no /proc mounted
  }
}

function outside(file: string): AppFileError {
  return new AppFileError('outside', file, 'is a link to a file outside the app directory: make it a file of the app');
}

function tooLarge(file: string, maxBytes: number): AppFileError {
  return new AppFileError('too-large', file, `is over ${sizeText(maxBytes)}, the most the server reads of it: make it smaller`);
}

/** `1 MiB (1048576 bytes)`; bytes alone when not a whole number of KiB. */
function sizeText(bytes: number): string {
  if (bytes > 0 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;
  if (bytes > 0 && bytes % 1024 === 0) return `${bytes / 1024} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}

/** An error of reading `file` as an AppFileError; its message never holds the host's path. */
function refused(err: unknown, file: string): AppFileError {
  if (err instanceof AppFileError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new AppFileError('missing', file, 'does not exist');
  // From realpath: a link to itself, or a ring of links (its path may run through a directory that is one).
  if (code === 'ELOOP' && !(err as NodeJS.ErrnoException).syscall?.startsWith('open')) {
    return new AppFileError('unreadable', file, 'is a link that leads back to itself, directly or through other links (ELOOP): make it a file of the app');
  }
  // ELOOP from O_NOFOLLOW: the real path's last part became a link after it was checked.
  return new AppFileError('unreadable', file, `cannot be read (${code ?? 'error'}): make it a readable file of the app`);
}
