// The one place that writes to the socket: the ResponseSink of exchange/ over node:http.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { problemBody, reasonPhrase, type Problem } from '../errors.ts';
import type { ResponseSink } from '../exchange/response.ts';
import { TurnBatch } from '../turn.ts';

/** Headers a problem keeps from what was prepared before it: the connection decision and the request id. */
const KEPT_BY_PROBLEMS = ['connection', 'x-request-id', 'access-control-allow-origin', 'access-control-expose-headers', 'vary'];

/**
 * Whole responses ended in one turn of the event loop, sent together at its end (`sendEnded`).
 * Each response that lands on a socket wakes whoever reads it (a load generator, a proxy reading
 * many connections), and a wake-up is dear (on a VM, an interrupt to another CPU): a burst of
 * responses costs the server about one, where one at a time cost one each. See `batched`.
 */
const ended = new TurnBatch();

/** Sends every response ended and not yet sent, now (at the end of a turn, or when the server stops). */
export function sendEnded(): void {
  ended.run();
}

export class HttpResponse implements ResponseSink {
  status = 200;
  readonly headers = new Map<string, string>();
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #head: boolean;
  #committed = false;
  #ended = false;
  /** What end() left to send at the end of the turn (sendEnded), until it is sent. */
  #unsent: (() => void) | undefined;
  /** The wait for the socket to drain that writes share (#drained). */
  #draining: Promise<void> | undefined;
  /** Bytes of body written so far. */
  written = 0;
  /** The code of the problem this response carries, when it is one (for the request log and metrics). */
  problem: string | undefined;

  /** How long a write may wait for the client to read, in milliseconds; then the connection is cut. */
  readonly #stallMs: number;

  /**
   * See ResponseSink. end() then leaves the body for the end of the turn (sendEnded), with the
   * others ended in it. The server says so when a few connections are open (server.ts
   * BATCH_CONNECTIONS): a lone connection's response would only wait.
   */
  readonly batched: boolean;

  constructor(req: IncomingMessage, res: ServerResponse, stallMs: number, batched = false) {
    this.#req = req;
    this.#res = res;
    this.#head = req.method === 'HEAD';
    this.#stallMs = stallMs;
    this.batched = batched;
  }

  get clientGone(): boolean {
    return this.#req.destroyed && !this.#req.complete;
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
    // The status line says what the problem's title says (Node still has older RFC wordings).
    const phrase = reasonPhrase(this.status);
    if (phrase !== undefined) res.statusMessage = phrase;
    for (const [name, value] of this.headers) res.setHeader(name, value);
    // 204 and 304 have no body by definition (RFC 9110 §15.3.5, §15.4.5), and so no type or
    // length of one: a 204 MUST NOT carry a Content-Length (§8.6), and a 304's may only be the
    // length of the 200 it stands for, which a handler's dropped view is not.
    if (this.status === 204 || this.status === 304) {
      res.removeHeader('content-type');
      res.removeHeader('content-length');
    }
  }

  /** Writes body text, committing first; resolves when the socket can take more (backpressure). */
  async write(chunk: string | Uint8Array): Promise<void> {
    this.commit();
    if (this.#ended || chunk.length === 0) return;
    // Text goes as text (see encoding()): Node copies it into the write.
    const text = typeof chunk === 'string' ? encoding(chunk) : undefined;
    this.written += text === undefined ? chunk.length : text.bytes;
    // HEAD is GET without a body: its status and headers go now, as GET's would with this write
    // (node:http would hold them until end(), and a response cut before that sent nothing at all).
    if (this.#head && !this.#res.headersSent) this.#res.flushHeaders();
    if (this.#head || this.status === 204 || this.status === 304) return;
    const res = this.#res;
    if (res.destroyed || this.#req.socket.destroyed) return;
    if (!(text === undefined ? res.write(chunk) : res.write(chunk, text.encoding))) await this.#drained();
  }

  /**
   * Resolves when the socket can take more, or the connection is gone. Writes that wait at once
   * share one wait (a handler's one-way echoes are written without waiting for each other: one
   * pair of listeners each was over Node's ten, a MaxListenersExceededWarning in the server's log
   * for every slow client).
   */
  #drained(): Promise<void> {
    const res = this.#res;
    const socket = this.#req.socket;
    return (this.#draining ??= new Promise<void>((resolve) => {
      let stalled: NodeJS.Timeout | undefined;
      // Queued behind an earlier response on the connection, it is not stalled: the clock starts when it has the socket.
      const arm = () => (stalled = setTimeout(() => res.destroy(), this.#stallMs));
      if (res.socket) arm();
      else res.once('socket', arm);
      const done = () => {
        clearTimeout(stalled);
        res.off('socket', arm);
        res.off('drain', done);
        res.off('close', done);
        socket.off('close', done);
        this.#draining = undefined;
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
      // A response still queued emits no 'close' when the connection goes.
      socket.on('close', done);
    }));
  }

  /** Completes the response (committing it if nothing was written). */
  end(chunk?: string): void {
    if (this.#ended) return;
    // Measured once: its length is the Content-Length, and the socket encodes the text as it writes it.
    const body = chunk === undefined ? undefined : encoding(chunk);
    const bytes = body === undefined ? 0 : body.bytes;
    // A whole body in one piece: Content-Length rather than chunked encoding (for HEAD, the
    // length GET would send).
    if (chunk !== undefined && !this.#committed && (this.#head || !this.headers.has('content-length'))) {
      this.headers.set('content-length', String(bytes));
    }
    this.commit();
    this.#ended = true;
    this.written += bytes;
    this.#unsent = () => {
      if (body !== undefined && !this.#head && this.status !== 204 && this.status !== 304) this.#res.end(chunk, body.encoding);
      else this.#res.end();
      this.#cutIfStalled();
    };
    if (this.batched) ended.add(() => this.send());
    else this.send();
  }

  /** Hands what end() left unsent to the socket now (a connection about to be cut must not lose it). */
  send(): void {
    const unsent = this.#unsent;
    this.#unsent = undefined;
    unsent?.();
  }

  /**
   * A body written in one piece waits in memory until the client reads it: a client that stops
   * reading is cut after the same stall time as a streamed one (write()), so that it cannot hold
   * the bytes (or the connection) for ever.
   */
  #cutIfStalled(): void {
    const res = this.#res;
    if (!res.socket && !res.destroyed) {
      // Queued behind an earlier response on the connection (pipelined; batched, two ended in one
      // turn go out together, the later still queued): its bytes go out when it has the socket,
      // which node:http announces just before writing them. The clock starts then, as #drained's.
      res.once('socket', () => process.nextTick(() => this.#cutIfStalled()));
      return;
    }
    const socket = res.socket;
    if (!socket || socket.destroyed || (this.#res.writableLength === 0 && socket.writableLength === 0)) return;
    // The socket's own buffer: the response counts as finished once its bytes are queued there.
    const stalled = setTimeout(() => socket.destroy(), this.#stallMs);
    stalled.unref();
    const done = () => {
      clearTimeout(stalled);
      socket.off('drain', done);
      socket.off('close', done);
    };
    socket.on('drain', done);
    socket.on('close', done);
  }

  /** Renders an error as application/problem+json (README "Errors"), when nothing was committed yet. */
  sendProblem(problem: Problem, headers?: Readonly<Record<string, string>>): void {
    if (this.#committed) {
      // Too late for a status: cut the response so the client sees it is incomplete.
      this.abort();
      return;
    }
    // A problem replaces whatever the handler had prepared.
    const kept = KEPT_BY_PROBLEMS.flatMap((name) => (this.headers.has(name) ? [[name, this.headers.get(name)!] as const] : []));
    this.headers.clear();
    for (const [k, v] of kept) this.headers.set(k, v);
    // An error answered before the body was read (a 404, a 413, …): rather than read and discard
    // a body of any size, close the connection after the answer.
    if (!this.#req.complete) this.headers.set('connection', 'close');
    for (const [k, v] of Object.entries(headers ?? {})) this.setHeader(k, v);
    this.status = problem.status;
    this.problem = problem.code;
    this.headers.set('content-type', 'application/problem+json');
    this.end(problemBody(problem, this.headers.get('x-request-id')));
  }

  /** Closes the connection without completing the response, after what was written of it. */
  abort(): void {
    this.#ended = true;
    this.send();
    // node:http corks the socket at a write until the next tick (to send the head and the first
    // chunk together): destroyed in the same tick, as when a handler throws right after its first
    // echo, the socket dropped them, and the client got an empty reply instead of the incomplete
    // response README "Errors" says it sees. Uncorked, they reach the socket before it closes.
    const socket = this.#res.socket;
    while (socket && socket.writableCorked > 0) socket.uncork();
    this.#res.destroy();
  }
}

/**
 * Answers on a connection that has no request to answer through (node:http could not parse one,
 * or it did not arrive in time): the problem, in the status line and headers a ServerResponse would
 * write, then the connection closes. Write it only while nothing of a response is on the wire.
 */
export function sendConnectionProblem(socket: Duplex, problem: Problem, requestId: string): void {
  const body = problemBody(problem, requestId);
  const head = [
    `HTTP/1.1 ${problem.status} ${reasonPhrase(problem.status) ?? problem.title}`,
    `date: ${new Date().toUTCString()}`,
    `x-request-id: ${requestId}`,
    'content-type: application/problem+json',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  // Closed once the bytes are out. A few hundred bytes go out at once, unless a response before
  // them is stuck on a client that stopped reading: that one's stall timer cuts the connection.
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * How body `text` goes to the socket as UTF-8, and how many bytes that is. Text that is all ASCII
 * (most JSON: its byte length is its length) is written byte for byte ('latin1'), about 3× faster
 * than V8's UTF-8 encoder (9 µs for a page of 20 members); Node copies it straight into the
 * socket's write, with no Buffer to allocate (1.5 µs for 8 KB) and fill first.
 */
export function encoding(text: string): { readonly bytes: number; readonly encoding: 'latin1' | 'utf8' } {
  const bytes = Buffer.byteLength(text);
  return { bytes, encoding: bytes === text.length ? 'latin1' : 'utf8' };
}
