// A tag whose name was followed by a Unicode space that is not XML white space (a no-break space,
// U+2028, U+3000, U+FEFF, …) was read as if the character were not there: `<dd\u00a0>x</dd>` and
// `</entry\u00a0>` were stored (201). XML 1.0 §3.1 allows only S (space, tab, CR, LF) between a
// tag's name and what follows it, and U+1680 or U+FEFF are even name characters, so
// `<dd\uFEFF>…</dd>` is a mismatched end tag. Such a document is not well-formed, and README
// "Representations" says a malformed document is 400 invalid-atom (its leniency list names only
// processing instructions). The fast-xml-parser reader ends a name at any JavaScript white space.
// The same characters stay fine in text, attribute values, comments, CDATA and PIs.

import t from 'tap';
import { atom } from '../../src/representation/atom.ts';
import { employees, entryBody, rejectsAtom } from '../helpers/atom-fixtures.ts';

const SPACES = ['\u00a0', '\u1680', '\u2000', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

t.test('a Unicode space after a name in a start or end tag is 400 invalid-atom', async (t) => {
  for (const c of SPACES) {
    const ok = entryBody('<dt>name</dt><dd>x</dd>');
    for (const [where, body] of [
      ['start tag', ok.replace('<dd>', `<dd${c}>`)],
      ['end tag', ok.replace('</dd>', `</dd${c}>`)],
      ['root end tag', ok.replace('</entry>', `</entry${c}>`)],
      ['start tag with attributes', ok.replace('<content type', `<content${c} type`)],
    ] as const) {
      t.test(`${hex(c)} in a ${where}`, async (t) => {
        rejectsAtom(t, body, /not well-formed XML/);
      });
    }
  }
});

t.test('the same characters in text, attribute values, comments, CDATA and PIs are fine', async (t) => {
  for (const c of SPACES) {
    const body = entryBody(`<dt>name</dt><dd title="a${c}b">x${c}y<!-- <b${c}> --><![CDATA[<i${c}>]]><?pi <u${c}> ?></dd>`);
    t.same({ ...atom.parseMember(body, employees).values }, { name: `x${c}y<i${c}>` }, hex(c));
  }
});

t.test('the check is linear: a megabyte of unclosed "<" is refused at once', async (t) => {
  const { cpuMs } = rejectsAtom(t, entryBody(`<dt>name</dt><dd>x</dd>\u00a0${'<a'.repeat(500_000)}`), /not well-formed XML|not allowed|invalid/);
  t.ok(cpuMs < 1000, `took ${cpuMs.toFixed(0)} ms of CPU`);
});
