// The response as every stage writes it: status and headers held until the first write commits them.

import type { Problem } from '../errors.ts';

/**
 * A response whose status and headers may change until the first body write commits them
 * (README "Handler scripts": output is not buffered). After that, changes are ignored. The
 * server implements it over node:http; nothing else touches the socket.
 */
export interface ResponseSink {
  readonly status: number;
  /** Response headers set so far, lower-case names. */
  readonly headers: ReadonlyMap<string, string>;
  /** Bytes of body written so far. */
  readonly written: number;
  /** Status and headers are sent. */
  readonly committed: boolean;
  /** The response is complete, or the connection is gone. */
  readonly ended: boolean;
  setStatus(status: number): void;
  /** Sets a header (name case-insensitive); ignored once committed. */
  setHeader(name: string, value: string): void;
  deleteHeader(name: string): void;
  /** Writes body text, committing first; resolves when the client can take more (backpressure). */
  write(chunk: string | Uint8Array): Promise<void>;
  /** Completes the response, committing it first; a whole body in one piece gets a Content-Length. */
  end(chunk?: string): void;
  /** Renders a problem (replacing prepared headers) while nothing is committed; else cuts the connection. */
  sendProblem(problem: Problem, headers?: Readonly<Record<string, string>>): void;
  /** Closes the connection without completing the response. */
  abort(): void;
  /** The client went away before its request was read whole: there is no one to answer. */
  readonly clientGone: boolean;
  /**
   * Whether this request's work waits for the end of its turn of the event loop, to go out with the
   * rest of the turn's (the response itself, its run in an isolate): the server says so while a few
   * connections are open, when a burst can form; a lone request's work would only wait.
   */
  readonly batched: boolean;
}
