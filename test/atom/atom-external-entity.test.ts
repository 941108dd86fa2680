// Hostile XML: external entities and DTDs (XXE) are refused; no file is read and no connection made.

import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { atom } from '../../src/representation/atom.ts';
import { employees, entryBody, rejectsAtom } from '../helpers/atom-fixtures.ts';

const SECRET = 'secret-7f3a9c';
const dir = mkdtempSync(join(tmpdir(), 'svc-xxe-'));
const secretFile = join(dir, 'secret.txt');
writeFileSync(secretFile, SECRET);
const secretUrl = pathToFileURL(secretFile).href;

// A listener that counts connections: an external DTD or entity fetched over the network would hit it.
/** Client ports of the connections the listener accepted, in order. */
const accepted: number[] = [];
let acceptedOne: (() => void) | undefined;
const server = createServer((s) => {
  accepted.push(s.remotePort!);
  acceptedOne?.();
  s.end();
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as { port: number };
const remote = `http://127.0.0.1:${port}/evil.dtd`;

t.teardown(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

function body(prolog: string, dd: string): string {
  return prolog + entryBody(`<dt>name</dt><dd>${dd}</dd>`).replace(/^<\?xml[^>]*>\n/, '');
}

const attacks: [string, string][] = [
  ['a SYSTEM entity naming a local file', body(`<!DOCTYPE entry [<!ENTITY xxe SYSTEM "${secretUrl}">]>`, '&xxe;')],
  ['a SYSTEM entity naming a URL', body(`<!DOCTYPE entry [<!ENTITY xxe SYSTEM "${remote}">]>`, '&xxe;')],
  ['a PUBLIC entity', body(`<!DOCTYPE entry [<!ENTITY xxe PUBLIC "-//x//y" "${remote}">]>`, '&xxe;')],
  ['an external DTD subset', body(`<!DOCTYPE entry SYSTEM "${remote}">`, 'x')],
  ['a parameter entity', body(`<!DOCTYPE entry [<!ENTITY % p SYSTEM "${remote}"> %p;]>`, 'x')],
];

for (const [name, xml] of attacks) {
  t.test(`${name} is 400 at the DOCTYPE`, async (t) => {
    rejectsAtom(t, xml, /a DOCTYPE is not allowed/);
  });
}

t.test('a reference to an undeclared external entity is 400 too', async (t) => {
  rejectsAtom(t, entryBody('<dt>name</dt><dd>&xxe;</dd>'), /the entity &xxe; is not allowed/);
});

t.test('XInclude is not processed: the element is markup inside the dd, its target never read', async (t) => {
  const xml = entryBody(`<dt>name</dt><dd><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${secretUrl}" parse="text"/></dd>`);
  t.same({ ...atom.parseMember(xml, employees).values }, { name: '' });
});

t.test('nothing was read or fetched: no error carries the file, no connection was made', async (t) => {
  for (const [, xml] of attacks) {
    try {
      atom.parseMember(xml, employees);
    } catch (e) {
      t.notMatch((e as Error).message, SECRET);
    }
  }
  // Parsing is synchronous, so any connection it started is under way now. A connection of our own
  // comes after it: once the listener has accepted ours, it has accepted any the parser made.
  const own = connect(port, '127.0.0.1');
  own.on('error', () => {});
  await once(own, 'connect');
  const ownPort = own.localPort!;
  while (!accepted.includes(ownPort)) await new Promise<void>((resolve) => (acceptedOne = resolve));
  own.destroy();
  t.same(accepted.filter((p) => p !== ownPort), [], 'no connection but our own');
});
