// A numeric character reference with leading zeros (`&#0000000065;`, `&#x000000041;`, both "A")
// was refused: "does not refer to a character allowed in XML". XML 1.0 §4.1 writes a character
// reference as '&#' [0-9]+ ';' or '&#x' [0-9a-fA-F]+ ';', any number of digits, and the
// character is the one of that number; README "Representations" says numeric character
// references are fine. The reader cut references at 8 digits before reading their number.
// References to characters XML does not allow, however many zeros they start with, stay 400.

import t from 'tap';
import { atom } from '../../src/representation/atom.ts';
import { employees, entryBody, rejectsAtom } from '../helpers/atom-fixtures.ts';

t.test('leading zeros in a character reference are read as the number they write', async (t) => {
  for (const [ref, ch] of [
    ['&#0000000065;', 'A'],
    ['&#x000000041;', 'A'],
    ['&#x00000001F600;', '\u{1F600}'],
    [`&#${'0'.repeat(100)}233;`, 'é'],
  ] as const) {
    const body = entryBody(`<dt>name</dt><dd>${ref}</dd>`);
    t.same({ ...atom.parseMember(body, employees).values }, { name: ch }, ref.slice(0, 20));
  }
});

t.test('references to characters XML does not allow stay 400, with or without zeros', async (t) => {
  for (const ref of ['&#x0000000000;', '&#0000000000000;', '&#x0000D800;', '&#x00000110000;', '&#00000001114112;', `&#x${'0'.repeat(50)}FFFE;`, '&#99999999999999999999;']) {
    rejectsAtom(t, entryBody(`<dt>name</dt><dd>${ref}</dd>`), /does not refer to a character allowed in XML/);
  }
});
