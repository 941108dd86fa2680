// The event-dispatch seam: how a collection's handler script serves a request.

import type { Exchange } from '../server/exchange.ts';

export interface HandlerRuntime {
  /**
   * Serves one request with the collection's handler script `file`. Completes the response
   * (ex.res) or throws an SvcError while nothing is committed yet.
   */
  serve(ex: Exchange, file: string): Promise<void>;
  /** Compiles `file` as it is now; resolves to the compile error message, or undefined. */
  check(file: string): Promise<string | undefined>;
  /** Frees isolates and caches. */
  close(): Promise<void>;
}
