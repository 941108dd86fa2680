// Raw HTTP/1.1 exchanges for pipelining tests: several requests written at once, the responses split by their framing.

import { connect, type Socket } from 'node:net';

/** Writes `parts` (one write each, `gapMs` apart) and collects bytes until the server closes or `idleMs` pass without data. */
export function exchange(port: number, parts: (string | Buffer)[], opts: { idleMs?: number; gapMs?: number; endAfter?: boolean } = {}): Promise<{ text: string; closed: boolean }> {
  const idleMs = opts.idleMs ?? 1500;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), idleMs);
    };
    socket.setEncoding('latin1');
    socket.on('data', (d) => {
      text += d;
      arm();
    });
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
    socket.on('connect', async () => {
      for (const p of parts) {
        if (socket.destroyed) break;
        socket.write(p);
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
      arm();
    });
  });
}

/** Splits `text` into HTTP/1.1 responses (Content-Length or chunked framing). */
export function responses(text: string): { status: number; head: string; body: string; complete: boolean }[] {
  const out = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const head = rest.slice(0, end);
    const status = Number(head.slice(9, 12));
    rest = rest.slice(end + 4);
    if (status === 100) {
      out.push({ status, head, body: '', complete: true });
      continue;
    }
    const cl = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      let body = '';
      let complete = false;
      for (;;) {
        const nl = rest.indexOf('\r\n');
        if (nl === -1) break;
        const size = parseInt(rest.slice(0, nl), 16);
        if (Number.isNaN(size)) break;
        if (size === 0) {
          const t = rest.indexOf('\r\n\r\n', nl - 2 >= 0 ? nl - 2 : 0);
          if (t !== -1) { complete = true; rest = rest.slice(t + 4); }
          break;
        }
        if (rest.length < nl + 2 + size + 2) { body += rest.slice(nl + 2); rest = ''; break; }
        body += rest.slice(nl + 2, nl + 2 + size);
        rest = rest.slice(nl + 2 + size + 2);
      }
      out.push({ status, head, body, complete });
      if (!complete) break;
    } else if (cl) {
      const n = Number(cl[1]);
      const isHeadLike = status === 204 || status === 304;
      const len = isHeadLike ? 0 : n;
      out.push({ status, head, body: rest.slice(0, len), complete: rest.length >= len });
      rest = rest.slice(len);
    } else {
      out.push({ status, head, body: '', complete: true });
    }
  }
  return out;
}

export const hdr = (head: string, name: string) => new RegExp(`\\r\\n${name}: *([^\\r]*)`, 'i').exec(head)?.[1];

/**
 * A connection that has had one request answered (so the server holds it open), left idle: the
 * server sends whole responses in bursts while three or more connections are open (server.ts
 * BATCH_CONNECTIONS), so tests of that open a few. Destroy it when done.
 */
export function idleConnection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('latin1');
    let text = '';
    socket.on('error', reject);
    socket.on('data', (d) => {
      text += d;
      if (responses(text)[0]?.complete) resolve(socket);
    });
    socket.on('connect', () => socket.write('GET /resources/types HTTP/1.1\r\nHost: localhost\r\n\r\n'));
  });
}
