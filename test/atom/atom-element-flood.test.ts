// Hostile XML: a flood of small elements is refused at a fixed count, before the whole body is read.

import t from 'tap';
import { atom } from '../../src/representation/atom.ts';
import { DEFAULT_XML_LIMITS, readXml, XmlError } from '../../src/representation/xml-read.ts';
import { employees, entryBody, rejectsAtom } from '../helpers/atom-fixtures.ts';

const LIMIT = DEFAULT_XML_LIMITS.maxElements;
const ignore = { open() {}, close() {}, text() {} };

t.test('a million bytes of empty elements is 400 at the element limit, in bounded time and memory', async (t) => {
  const xml = entryBody(`<dt>name</dt><dd>${'<b/>'.repeat(250_000)}</dd>`);
  const { cpuMs, heapGrowth } = rejectsAtom(t, xml, new RegExp(`more than ${LIMIT} elements`));
  // Reading all 250,000 takes seconds; the limit stops the parser after 1/25 of them.
  t.ok(cpuMs < 1000, `rejected in ${cpuMs.toFixed(1)} ms of CPU`);
  t.ok(heapGrowth < 32 * 1024 * 1024, `heap grew by ${(heapGrowth / 1024).toFixed(0)} KiB`);
});

t.test('every element counts, wherever it is; the limit itself is fine', async (t) => {
  const limits = { ...DEFAULT_XML_LIMITS, maxElements: 20 };
  // entry, title, content, div, ol, li, dl: 7, plus a dt and a dd.
  const at = (n: number) => entryBody(`<dt>name</dt><dd>x</dd>`).replace('<title>t</title>', `<title>t</title>${'<x:e xmlns:x="urn:x"/>'.repeat(n)}`);
  t.doesNotThrow(() => readXml(at(11), ignore, limits));
  t.throws(() => readXml(at(12), ignore, limits), new XmlError('the document has more than 20 elements'));
});

t.test('an entry of many fields is well under the limit', async (t) => {
  const dl = Array.from({ length: 1000 }, (_, i) => `<dt>f${i}</dt><dd>${i}</dd>`).join('');
  t.equal(Object.keys(atom.parseMember(entryBody(dl), employees).values).length, 1000);
});
