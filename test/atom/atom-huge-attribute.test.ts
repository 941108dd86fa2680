// Hostile XML: huge attribute values, names and counts are refused before they are copied.

import t from 'tap';
import { atom } from '../../src/representation/atom.ts';
import { DEFAULT_XML_LIMITS } from '../../src/representation/xml-read.ts';
import { employees, entryBody, rejectsAtom } from '../helpers/atom-fixtures.ts';

const { maxAttributeLength, maxAttributes, maxNameLength } = DEFAULT_XML_LIMITS;

t.test('a one-megabyte attribute value is 400, fast and in bounded memory', async (t) => {
  const xml = entryBody('<dt>name</dt><dd>x</dd>').replace('<entry ', `<entry huge="${'A'.repeat(1_000_000)}" `);
  const { cpuMs, heapGrowth } = rejectsAtom(t, xml, new RegExp(`attribute "huge" is longer than ${maxAttributeLength} characters`));
  t.ok(cpuMs < 200, `rejected in ${cpuMs.toFixed(1)} ms of CPU`);
  t.ok(heapGrowth < 16 * 1024 * 1024, `heap grew by ${(heapGrowth / 1024).toFixed(0)} KiB`);
});

t.test('a huge value full of references is refused before decoding', async (t) => {
  const xml = entryBody('<dt>name</dt><dd>x</dd>').replace('<dl>', `<dl title="${'&amp;'.repeat(200_000)}">`);
  rejectsAtom(t, xml, /attribute "title" is longer than/);
});

t.test('an attribute value that never closes is 400', async (t) => {
  rejectsAtom(t, `<entry xmlns="http://www.w3.org/2005/Atom" a="${'A'.repeat(1_000_000)}`, /a tag is not closed: a ">" or the closing quote of an attribute value is missing/);
});

t.test('a huge attribute name is 400', async (t) => {
  rejectsAtom(t, entryBody('').replace('<entry ', `<entry ${'a'.repeat(500_000)}="1" `), new RegExp(`attribute name is longer than ${maxNameLength}`));
});

t.test('a huge element name is 400', async (t) => {
  rejectsAtom(t, `<${'e'.repeat(500_000)}/>`, new RegExp(`element name is longer than ${maxNameLength}`));
});

t.test('thousands of attributes are 400', async (t) => {
  const attrs = Array.from({ length: 20_000 }, (_, i) => `a${i}="${i}"`).join(' ');
  rejectsAtom(t, entryBody('').replace('<entry ', `<entry ${attrs} `), new RegExp(`more than ${maxAttributes} attributes`));
});

t.test('an attribute at the limit is fine', async (t) => {
  const xml = entryBody('<dt>name</dt><dd>x</dd>').replace('<dl>', `<dl title="${'t'.repeat(maxAttributeLength)}">`);
  t.same({ ...atom.parseMember(xml, employees).values }, { name: 'x' });
});
