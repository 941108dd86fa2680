// One keep-alive HTTP/1.1 connection of the load generator: a request written as one buffer, the
// response read with as little work as a response can be read (status, two headers, the body's
// length), so that the load generator takes as little of the machine's two cores as it can.
//
// undici (the Pool the bench used before) spent about 110 µs of CPU per request, the raw
// node:http ceiling about 65: the bench was measuring its own client as much as the servers.
// This reads what a response says it is (Content-Length, or chunked), and nothing else.

import { connect, type Socket } from 'node:net';

export interface Response {
  readonly status: number;
  /** Body bytes. */
  readonly bytes: number;
  /** The X-Total-Count header, when there was one. */
  readonly total?: number;
  /** The body as text, only when the status is not the one expected (for the report). */
  readonly body?: string;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** A request as bytes: method, path, Host, headers, and a body with its Content-Length. */
export function requestBytes(method: string, path: string, host: string, headers: Readonly<Record<string, string>> = {}, body?: string): Buffer {
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== 'host') head += `${k}: ${v}\r\n`;
  if (body !== undefined) head += `content-length: ${Buffer.byteLength(body)}\r\n`;
  head += '\r\n';
  return Buffer.from(body === undefined ? head : head + body);
}

/** Value of header `name` (lower case, with its colon) in `head`, a lower-cased header block. */
function header(head: string, name: string): string | undefined {
  const i = head.indexOf(`\r\n${name}`);
  if (i < 0) return undefined;
  const end = head.indexOf('\r\n', i + 2);
  return head.slice(i + 2 + name.length, end < 0 ? undefined : end).trim();
}

export class Connection {
  readonly #socket: Socket;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (r: Response) => void; reject: (e: Error) => void; expect: number } | undefined;
  #error: Error | undefined;
  readonly #ready: Promise<void>;

  constructor(host: string, port: number) {
    this.#socket = connect({ host, port, noDelay: true });
    this.#ready = new Promise((resolve, reject) => {
      this.#socket.once('connect', resolve);
      this.#socket.once('error', reject);
    });
    this.#socket.on('data', (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#parse();
    });
    const fail = (e: Error) => {
      this.#error ??= e;
      const w = this.#waiting;
      this.#waiting = undefined;
      w?.reject(this.#error);
    };
    this.#socket.on('error', fail);
    this.#socket.on('close', () => fail(new Error('the server closed the connection')));
  }

  /** Sends `request` and resolves with its response (its body kept when its status is not `expect`); one request at a time. */
  async send(request: Buffer, expect: number): Promise<Response> {
    await this.#ready;
    if (this.#error) throw this.#error;
    if (this.#waiting) throw new Error('one request at a time');
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject, expect };
      this.#socket.write(request);
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #parse(): void {
    const w = this.#waiting;
    if (!w) return;
    const buf = this.#buffer;
    const headEnd = buf.indexOf(CRLF2);
    if (headEnd < 0) return;
    const head = buf.toString('latin1', 0, headEnd).toLowerCase();
    const status = Number(head.slice(9, 12));
    const start = headEnd + 4;
    const keepBody = status !== w.expect;
    const length = header(head, 'content-length:');
    let end: number;
    let bytes: number;
    let body: string | undefined;
    if (length !== undefined) {
      bytes = Number(length);
      end = start + bytes;
      if (buf.length < end) return;
      if (keepBody) body = buf.toString('utf8', start, end);
    } else if (header(head, 'transfer-encoding:') === 'chunked') {
      // Chunks: hex size, CRLF, data, CRLF; the last has size 0 (no trailers from these servers).
      bytes = 0;
      const parts: Buffer[] = [];
      let at = start;
      for (;;) {
        const line = buf.indexOf('\r\n', at);
        if (line < 0) return;
        const size = parseInt(buf.toString('latin1', at, line), 16);
        if (buf.length < line + 2 + size + 2) return;
        if (keepBody) parts.push(buf.subarray(line + 2, line + 2 + size));
        bytes += size;
        at = line + 2 + size + 2;
        if (size === 0) break;
      }
      end = at;
      if (keepBody) body = Buffer.concat(parts).toString('utf8');
    } else {
      // 204/304 and the like: no body.
      bytes = 0;
      end = start;
    }
    this.#buffer = buf.length === end ? Buffer.alloc(0) : buf.subarray(end);
    this.#waiting = undefined;
    const total = header(head, 'x-total-count:');
    w.resolve({ status, bytes, ...(total !== undefined ? { total: Number(total) } : {}), ...(body !== undefined ? { body } : {}) });
  }
}
