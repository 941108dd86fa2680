// Attack: framing headers (content-length, transfer-encoding, connection) set by a handler, so that
// its output smuggles a second HTTP response onto a keep-alive connection (response splitting).

import net from 'node:net';
import t from 'tap';
import { applyHead } from '../../src/sandbox/guest.ts';
import { stubSink } from '../helpers/stub-exchange.ts';
import { PEOPLE, sandboxServer } from './harness.ts';

const SMUGGLED = 'HTTP/1.1 200 OK\\r\\ncontent-type: text/plain\\r\\ncontent-length: 6\\r\\n\\r\\npwned!';

const s = await sandboxServer({
  models: { split: PEOPLE },
  resources: {
    'split.ts': `
      const name = String(zget('/request/params/h'));
      const refused: string[] = [];
      for (const [h, v] of [[name, '2'], ['connection', 'keep-alive'], ['transfer-encoding', 'identity'], ['keep-alive', 'timeout=600'], ['upgrade', 'h2c']]) {
        try { zput('/request/headers/out/' + h, v); } catch (e) { refused.push(h + ':' + (e as Error).name); }
      }
      try { zdelete('/request/headers/out/connection'); } catch (e) { refused.push('zdelete:' + (e as Error).name); }
      zput('/request/headers/out/x-refused', refused.join(','));
      echo('ok');
      echo('${SMUGGLED}');`,
  },
});
t.teardown(() => s.close());

/** Two pipelined requests on one connection: everything the server sent back. */
function pipelined(path: string): Promise<string> {
  const url = new URL(s.at(path));
  return new Promise((resolve, reject) => {
    let data = '';
    const c = net.connect(Number(url.port), url.hostname, () => {
      c.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\nGET /resources/types HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    });
    c.setEncoding('latin1');
    c.on('data', (d: string) => (data += d));
    c.on('error', reject);
    c.on('close', () => resolve(data));
    // Only ends a failing test (the second request asks the server to close): room for any load.
    setTimeout(() => c.destroy(), 20_000).unref();
  });
}

interface Parsed {
  readonly head: string;
  readonly body: string;
}

/** The responses in `raw`, framed as a client reads them (Content-Length, chunked, or to the end). */
function responses(raw: string): Parsed[] {
  const out: Parsed[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const head = raw.slice(at, end).toLowerCase();
    at = end + 4;
    const length = /^content-length: *(\d+)/m.exec(head);
    let body = '';
    if (length) {
      body = raw.slice(at, at + Number(length[1]));
      at += Number(length[1]);
    } else if (/^transfer-encoding: *chunked/m.test(head)) {
      for (;;) {
        const eol = raw.indexOf('\r\n', at);
        const size = parseInt(raw.slice(at, eol), 16);
        at = eol + 2;
        if (!size) break;
        body += raw.slice(at, at + size);
        at += size + 2;
      }
      at += 2;
    } else {
      body = raw.slice(at);
      at = raw.length;
    }
    out.push({ head, body });
  }
  return out;
}

for (const h of ['content-length', 'Content-Length', 'transfer-encoding']) {
  t.test(`a handler cannot set ${h}: its output stays one response`, async (t) => {
    const [first, second, ...more] = responses(await pipelined(`/resources/split?h=${h}`));
    t.equal(more.length, 0, 'two requests, two responses');
    t.match(first?.body, /^ok.*pwned!$/s, 'the "response" the handler wrote is body text of its own');
    t.match(second?.head, /^http\/1\.1 200 ok/);
    t.notMatch(second?.body, /pwned/, 'the next request gets its own answer');
    t.match(second?.body, /^\[/);
    t.notMatch(first?.head, /content-length: 2|transfer-encoding: identity|keep-alive: timeout=600|upgrade: h2c/);
    t.match(first?.head, new RegExp(`x-refused: ${h.toLowerCase()}:typeerror,connection:typeerror,transfer-encoding:typeerror,keep-alive:typeerror,upgrade:typeerror,zdelete:typeerror`), 'each zput/zdelete threw a TypeError');
  });
}

t.test('the host ignores framing headers from the guest and keeps its own', async (t) => {
  const sink = stubSink();
  sink.setHeader('connection', 'close');
  applyHead({ res: sink } as never, { headers: [['content-length', '1'], ['transfer-encoding', 'chunked'], ['x-a', 'b']] });
  t.same([...sink.headers], [['connection', 'close'], ['x-a', 'b']]);
});
