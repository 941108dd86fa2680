// The event-dispatch seam: how a collection's handler script serves a request.

import type { EventName } from '../routing/events.ts';
import type { Limits } from './limits.ts';
import type { Exchange } from './exchange.ts';
import type { Logger } from './log.ts';

export interface HandlerRuntime {
  /**
   * Serves one request with the collection's handler script (`ex.handler`). Writes the response
   * and resolves, or throws; the caller then completes the response (exchange/complete.ts).
   */
  serve(ex: Exchange): Promise<void>;
  /** Compiles `file` as it is now; resolves to the compile error message, or undefined. */
  check(file: string): Promise<string | undefined>;
  /**
   * The events the handler `file` serves, when they are known without running it (the one-line
   * `svc.delegate()` serves the default handler's); undefined when only running it tells. Unless
   * `exact`, also those its source shows (`on<Event>` functions, a class's methods), for documents
   * and preflights: a reading of its text, meant to list more than it serves rather than fewer,
   * which code written to hide its functions (computed names, destructuring) could still defeat.
   */
  events(file: string, exact?: boolean): Promise<readonly EventName[] | undefined>;
  /** Isolates alive now (for metrics); 0 for a runtime without any. */
  isolates(): number;
  /** Frees isolates and caches. */
  close(): Promise<void>;
}

/** What a runtime knows of the app it serves. */
export interface RuntimeScope {
  /** The tenant's name; '' in single-app mode. */
  readonly name: string;
  /** The app directory. */
  readonly dir: string;
  readonly limits: Limits;
  /** The app's log (its tenant is on every record). */
  readonly log: Logger;
}

export type RuntimeFactory = (scope: RuntimeScope) => HandlerRuntime;
