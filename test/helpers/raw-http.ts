// Raw HTTP/1.1 over a socket, for requests fetch() will not send (no Host, malformed lines, CONNECT).

import { request } from 'node:http';
import { connect } from 'node:net';

/** What came back on a connection, split at the end of the head. */
export interface Raw {
  status: number;
  head: string;
  body: string;
}

/** Sends `data` as it is and collects what comes back until the server closes the connection. */
export function raw(port: number, data: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (text += d));
    socket.on('error', () => {});
    socket.on('close', () => {
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.slice(9, 12)), head: end === -1 ? text : text.slice(0, end), body: end === -1 ? '' : text.slice(end + 4) });
    });
    socket.on('connect', () => socket.write(data));
    // Only a server that never closes the connection gets here.
    setTimeout(() => reject(new Error(`connection stayed open; got ${JSON.stringify(text)}`)), 20_000).unref();
  });
}

/** A GET with a Host of its own (fetch() sets Host from the URL): status, headers and body text. */
export function getWithHost(port: number, host: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request with Host `host` (a tenant, say) and a JSON body: its status and parsed JSON body. fetch() sets Host from the URL. */
export function callWithHost(port: number | string, host: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
