// Driver errors as the server reports them: a database that cannot answer is 503 store-unavailable.

import { MongoError, MongoNetworkError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb';
import { SvcError } from '../../errors.ts';
import { storeTimeLimit, storeUnavailable } from '../store.ts';

/** Error labels the driver or server put on errors that a later attempt may not meet. */
const TRANSIENT_LABELS = ['RetryableWriteError', 'TransientTransactionError', 'ResetPool', 'SystemOverloadedError', 'RetryableError'];

/**
 * Server error codes of a database that is (for now) unable to answer: no primary, shutting
 * down, overloaded, timed out, a write conflict. https://www.mongodb.com/docs/manual/reference/error-codes/
 */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  24, // LockTimeout
  46, // LockBusy
  50, // MaxTimeMSExpired
  64, // WriteConcernFailed
  89, // NetworkTimeout
  91, // ShutdownInProgress
  112, // WriteConflict
  133, // FailedToSatisfyReadPreference
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Class names of driver errors that mean "no usable connection" (some are not exported as classes). */
const UNAVAILABLE_ERRORS = new Set([
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoServerClosedError',
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError',
  'MongoStalePrimaryError',
  'MongoOperationTimeoutError',
]);

/**
 * Node's codes for a connection that failed. The driver wraps most of these in MongoNetworkError,
 * but not all: a write to a socket the server just closed surfaces as a plain EPIPE.
 */
const NETWORK_CODES = new Set([
  'EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN',
  'ENOTFOUND', 'EAI_AGAIN', 'ERR_SOCKET_CLOSED', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END',
]);

/** Whether `e` (from a driver call) says the database cannot answer now (and a retry later may succeed). */
export function isUnavailable(e: unknown): boolean {
  if (!(e instanceof MongoError)) {
    const code = (e as { code?: unknown } | null)?.code;
    return e instanceof Error && typeof code === 'string' && NETWORK_CODES.has(code);
  }
  if (e instanceof MongoNetworkError || e instanceof MongoServerSelectionError || e instanceof MongoWriteConcernError) return true;
  if (UNAVAILABLE_ERRORS.has(e.name)) return true;
  if (TRANSIENT_LABELS.some((label) => e.hasErrorLabel(label))) return true;
  return e instanceof MongoServerError && typeof e.code === 'number' && UNAVAILABLE_CODES.has(e.code);
}

/** Whether `e` is a duplicate key (E11000). */
export function isDuplicateKey(e: unknown): boolean {
  return e instanceof MongoServerError && e.code === 11000;
}

/**
 * What a store operation throws for a driver error: store-unavailable (no host, URI or stack in
 * it; the cause is kept for the log) when the database cannot answer, else the error itself
 * (a 500 whose details only the log shows, as for an unexpected SQLite error).
 */
export function storeError(e: unknown): unknown {
  return isUnavailable(e) ? storeUnavailable(e) : e;
}

/**
 * What a write of a member (insertOne, updateOne, deleteOne) throws for a driver error: storeError,
 * unless the command may have reached the server and been applied, its reply lost (`mayHaveWritten`).
 * Then the write may or may not be stored, and the retryable 503 would have a client store a
 * create twice: 500 internal-error saying to read before writing again, as SQLite answers a write
 * its writer thread stopped before acknowledging (sqlite/writer.ts `outcomeUnknown`). The cause is
 * kept for the server's log.
 */
export function writeError(e: unknown): unknown {
  if (!mayHaveWritten(e)) return storeError(e);
  const err = new SvcError('internal-error', 'The connection to the data store was lost before it acknowledged this write, which may or may not have been stored: read before writing it again.');
  Object.defineProperty(err, 'cause', { value: e, enumerable: false });
  return err;
}

/**
 * Whether a write that failed with `e` may have been applied: a connection that failed once the
 * command could have been sent (MongoNetworkError and its timeout, a socket error the driver did
 * not wrap), or a write concern the server could not satisfy after it applied the write. Not: no
 * server to send it to (MongoServerSelectionError, a closed or cleared pool, a closed client), a
 * connection that failed while it was being opened (`openingFailed`), the NoWritesPerformed label,
 * or a server's error reply (the write was refused, or interrupted before it committed: one
 * document's write is atomic).
 * https://github.com/mongodb/specifications/blob/master/source/retryable-writes/retryable-writes.md
 */
function mayHaveWritten(e: unknown): boolean {
  if (!(e instanceof MongoError)) return isUnavailable(e);
  if (e.hasErrorLabel('NoWritesPerformed')) return false;
  if (e instanceof MongoWriteConcernError || (e instanceof MongoServerError && e.code === 64)) return true; // WriteConcernFailed
  if (e instanceof MongoNetworkError) return !openingFailed(e);
  return e.name === 'MongoOperationTimeoutError';
}

/**
 * Whether a network error is one of opening a connection, before any command went on it: the
 * driver (7.x) labels those HandshakeError (the handshake failed) or SystemOverloadedError (the
 * socket could not be made, cmap/connect.js `applyBackpressureLabels`), and sets `beforeHandshake`
 * on a timeout then (not exported); the socket's own error says `connect` (ECONNREFUSED).
 */
function openingFailed(e: MongoNetworkError): boolean {
  if ((e as { beforeHandshake?: unknown }).beforeHandshake === true) return true;
  if (e.hasErrorLabel('HandshakeError') || e.hasErrorLabel('SystemOverloadedError')) return true;
  return (e.cause as { syscall?: unknown } | undefined)?.syscall === 'connect';
}

/** A read's storeError: MaxTimeMSExpired (50) of the `maxTimeMS` it set is its time limit, not an outage. */
export function readError(e: unknown, timeMs: number): unknown {
  if (e instanceof MongoServerError && e.code === 50) return storeTimeLimit(timeMs);
  return storeError(e);
}

/** Dropping an index that is not there (IndexNotFound, 27; no collection yet, NamespaceNotFound, 26) is no error. */
export function ignoreMissingIndex(e: unknown): void {
  if (e instanceof MongoServerError && (e.code === 27 || e.code === 26)) return;
  throw e;
}
