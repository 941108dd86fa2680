// The one place that writes responses: status and headers are held until the first write commits them.

import type { ServerResponse } from 'node:http';
import { SvcError, type Problem } from '../errors.ts';

/**
 * A response whose status and headers may change until the first body write commits them
 * (SPEC §8: output is not buffered). After that, changes are ignored.
 */
export class ResponseSink {
  status = 200;
  readonly headers = new Map<string, string>();
  #res: ServerResponse;
  #head: boolean;
  #committed = false;
  #ended = false;
  /** Bytes of body written so far. */
  written = 0;

  /** How long a write may wait for the client to read, in milliseconds; then the connection is cut. */
  #stallMs: number;

  constructor(res: ServerResponse, head: boolean, stallMs = 30_000) {
    this.#res = res;
    this.#head = head;
    this.#stallMs = stallMs;
  }

  get committed(): boolean {
    return this.#committed;
  }
  /** True once the response is complete, or the connection is gone. */
  get ended(): boolean {
    return this.#ended || this.#res.destroyed;
  }

  setStatus(status: number): void {
    if (!this.#committed) this.status = status;
  }
  /** Sets a response header (name case-insensitive); ignored once committed. */
  setHeader(name: string, value: string): void {
    if (!this.#committed) this.headers.set(name.toLowerCase(), value);
  }
  deleteHeader(name: string): void {
    if (!this.#committed) this.headers.delete(name.toLowerCase());
  }

  /** Sends status and headers now. */
  commit(): void {
    if (this.#committed) return;
    this.#committed = true;
    const res = this.#res;
    res.statusCode = this.status;
    for (const [name, value] of this.headers) res.setHeader(name, value);
    // 204 and 304 have no body by definition (RFC 9110 §15.3.5, §15.4.5).
    if (this.status === 204 || this.status === 304) res.removeHeader('content-type');
  }

  /** Writes body text, committing first; resolves when the socket can take more (backpressure). */
  async write(chunk: string | Uint8Array): Promise<void> {
    this.commit();
    if (this.#ended || chunk.length === 0) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.written += bytes.length;
    if (this.#head || this.status === 204 || this.status === 304) return;
    const res = this.#res;
    if (res.destroyed) return;
    if (!res.write(bytes)) {
      await new Promise<void>((resolve) => {
        // A client that stops reading must not hold the response (and, for a streamed list, its
        // database statement and read snapshot) forever.
        const stalled = setTimeout(() => res.destroy(), this.#stallMs);
        const done = () => {
          clearTimeout(stalled);
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }

  /** Completes the response (committing it if nothing was written). */
  end(chunk?: string): void {
    if (this.#ended) return;
    const bytes = chunk === undefined ? 0 : Buffer.byteLength(chunk);
    // A whole body in one piece: Content-Length rather than chunked encoding (for HEAD, the
    // length GET would send).
    if (chunk !== undefined && !this.#committed && (this.#head || !this.headers.has('content-length'))) {
      this.headers.set('content-length', String(bytes));
    }
    this.commit();
    this.#ended = true;
    this.written += bytes;
    if (chunk !== undefined && !this.#head && this.status !== 204 && this.status !== 304) this.#res.end(chunk);
    else this.#res.end();
  }

  /** Sends a whole body with a content type. */
  send(status: number, contentType: string, body: string): void {
    this.setStatus(status);
    this.setHeader('content-type', contentType);
    this.end(body);
  }

  /** Renders an error as application/problem+json (SPEC §11), when nothing was committed yet. */
  sendProblem(problem: Problem, headers?: Record<string, string>): void {
    if (this.#committed) {
      // Too late for a status: cut the response so the client sees it is incomplete.
      this.abort();
      return;
    }
    // A problem replaces whatever the handler had prepared (but a decision to close the connection stands).
    const connection = this.headers.get('connection');
    this.headers.clear();
    if (connection) this.headers.set('connection', connection);
    for (const [k, v] of Object.entries(headers ?? {})) this.setHeader(k, v);
    this.send(problem.status, 'application/problem+json', JSON.stringify(problem));
  }

  sendError(err: SvcError): void {
    this.sendProblem(err.toProblem(), err.headers);
  }

  /** Closes the connection without completing the response. */
  abort(): void {
    this.#ended = true;
    this.#res.destroy();
  }
}
