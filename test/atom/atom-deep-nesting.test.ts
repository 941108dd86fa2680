// Hostile XML: deeply nested elements are refused at a fixed depth, without recursion or a big tree.

import t from 'tap';
import { atom } from '../../src/representation/atom.ts';
import { DEFAULT_XML_LIMITS } from '../../src/representation/xml-read.ts';
import { employees, entryBody, rejectsAtom } from '../helpers/atom-fixtures.ts';

const LIMIT = DEFAULT_XML_LIMITS.maxDepth;

t.test('a million-byte tower of elements is 400, fast and in bounded memory', async (t) => {
  const depth = 150_000; // ~1 MiB, the default body limit
  const xml = entryBody(`<dt>name</dt><dd>${'<b>'.repeat(depth)}x${'</b>'.repeat(depth)}</dd>`);
  const { cpuMs, heapGrowth } = rejectsAtom(t, xml, new RegExp(`nested deeper than ${LIMIT} levels`));
  t.ok(cpuMs < 200, `rejected in ${cpuMs.toFixed(1)} ms of CPU`);
  t.ok(heapGrowth < 16 * 1024 * 1024, `heap grew by ${(heapGrowth / 1024).toFixed(0)} KiB`);
});

t.test('unclosed nesting (no end tags at all) is refused the same way', async (t) => {
  rejectsAtom(t, entryBody(`<dt>name</dt><dd>${'<i>'.repeat(200_000)}</dd>`), /nested deeper than/);
});

t.test('nesting anywhere in the entry counts, not only in the content', async (t) => {
  const xml = `<entry xmlns="http://www.w3.org/2005/Atom">${'<x:e xmlns:x="urn:x">'.repeat(LIMIT)}</entry>`;
  rejectsAtom(t, xml, /nested deeper than/);
});

t.test('nesting up to the limit is fine: markup in a dd counts for its text', async (t) => {
  // entry, content, div, ol, li, dl, dd: 7 levels before the spans.
  const spans = LIMIT - 7;
  const xml = entryBody(`<dt>name</dt><dd>${'<span>'.repeat(spans)}deep${'</span>'.repeat(spans)}</dd>`);
  t.same({ ...atom.parseMember(xml, employees).values }, { name: 'deep' });
});
