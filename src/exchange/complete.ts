// The one way a response ends: complete, render a problem, or cut the connection.

import { SvcError } from '../errors.ts';
import type { Exchange } from './exchange.ts';

/** What ending a response needs; the server has it before an exchange exists (a 404 of the router). */
export type Ending = Pick<Exchange, 'res' | 'log' | 'dev'>;

/**
 * Ends the response. Without an error: completes it (an empty body when nothing was written).
 * With an SvcError: renders its problem while nothing is committed, else cuts the connection so
 * the client sees the response is incomplete. Any other error is a bug: logged, then answered
 * 500 `internal-error` the same way; unless the client went away while sending, when there is
 * no one to answer.
 */
export function complete(ex: Ending, error?: unknown): void {
  const res = ex.res;
  if (error === undefined) {
    if (!res.ended) res.end();
    return;
  }
  if (res.ended) return;
  if (error instanceof SvcError) {
    res.sendProblem(error.toProblem(), error.headers);
    return;
  }
  if (res.clientGone) {
    res.abort();
    return;
  }
  ex.log.error(`internal error: ${(error as Error)?.stack ?? String(error)}`);
  const detail = ex.dev ? String((error as Error)?.message ?? error) : 'The server failed to answer this request.';
  res.sendProblem(new SvcError('internal-error', detail).toProblem());
}
