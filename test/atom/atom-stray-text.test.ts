// Text directly inside the XOXO <dl>, between its <dt>/<dd> elements, was dropped without a word:
// `<dl>stray<dt>name</dt>junk<dd>x</dd></dl>` was stored (201), though a <p> in the same place is
// refused. The dl is the member: any text in it that is not in a dt or dd is 400 invalid-atom.
// Whitespace (indentation, newlines) between the elements is fine; so is anything outside the dl,
// which is ignored like other markup there (README "Representations").

import t from 'tap';
import { atom } from '../../src/representation/atom.ts';
import { employees, entryBody, rejectsAtom } from '../helpers/atom-fixtures.ts';
import { appServer } from '../helpers/server.ts';

const ENTRY = '<entry xmlns="http://www.w3.org/2005/Atom"><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">';
const END = '</div></content></entry>';

t.test('text directly in the dl is 400 invalid-atom, saying what to fix', async (t) => {
  const fix = /The XOXO <dl> holds text outside its <dt> and <dd> elements \("[^"]*"\): put only <dt>field<\/dt><dd>value<\/dd> pairs in it, each value inside its <dd>\./;
  for (const dl of [
    'stray text<dt>name</dt>more junk<dd>x</dd>tail',
    'stray<dt>name</dt><dd>x</dd>',
    '<dt>name</dt>x<dd>y</dd>',
    '<dt>name</dt><dd>x</dd>tail',
    '<dt>name</dt>\n  <dd>x</dd>\n  age\n',
    '<dt>name</dt><dd>x</dd><![CDATA[cdata]]>',
    '<dt>name</dt><dd>x</dd>&amp;',
    // Not XML whitespace (S is space, tab, CR, LF): a no-break space is text.
    '<dt>name</dt><dd>x</dd>&#160;',
    '\u00a0<dt>name</dt><dd>x</dd>',
  ]) {
    rejectsAtom(t, entryBody(dl), fix);
  }
});

t.test('the message shows the text, trimmed and cut short', async (t) => {
  rejectsAtom(t, entryBody('<dt>name</dt>\n  more junk  \n<dd>x</dd>'), /\("more junk"\)/);
  rejectsAtom(t, entryBody(`<dt>name</dt><dd>x</dd>${'y'.repeat(100_000)}`), /\("y{64}…"\)/);
});

t.test('whitespace between the dl elements is fine', async (t) => {
  const body = entryBody('\n  <dt>name</dt>\r\n\t<dd> x </dd>\n  <!-- a comment --><?pi?>\n  <dt>notes</dt> <dd>y</dd>\n<![CDATA[ \n ]]>&#32;&#x9;&#10;');
  t.same({ ...atom.parseMember(body, employees).values }, { name: ' x ', notes: 'y' });
});

t.test('text outside the dl is ignored, like other markup outside it', async (t) => {
  for (const body of [
    `${ENTRY}prose before<dl><dt>name</dt><dd>x</dd></dl>prose after${END}`,
    `<entry xmlns="http://www.w3.org/2005/Atom"><content type="xhtml">before<div xmlns="http://www.w3.org/1999/xhtml"><dl><dt>name</dt><dd>x</dd></dl></div>after</content></entry>`,
    `${ENTRY}<ol class="xoxo">a<li name="employees">b<dl><dt>name</dt><dd>x</dd></dl>c</li>d</ol>${END}`,
  ]) {
    t.same({ ...atom.parseMember(body, employees).values }, { name: 'x' }, body);
  }
});

t.test('over HTTP: the entry is 400 and nothing is stored', async (t) => {
  const server = await appServer(t, {
    models: { things: { fields: { name: { type: 'string' } } } },
    resources: { 'things.ts': 'svc.delegate();\n' },
  });
  const url = server.at('/resources/things');
  const post = (body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/atom+xml' }, body });
  const res = await post(`${ENTRY}<dl>stray text<dt>name</dt>more junk<dd>x</dd>tail</dl>${END}`);
  t.equal(res.status, 400);
  const problem = (await res.json()) as { code: string; detail: string };
  t.equal(problem.code, 'invalid-atom');
  t.match(problem.detail, /The XOXO <dl> holds text outside its <dt> and <dd> elements \("stray text"\)/);
  t.same(await (await fetch(url)).json(), []);
  const ok = await post(`${ENTRY}\n  <dl>\n    <dt>name</dt>\n    <dd>x</dd>\n  </dl>\n${END}`);
  t.equal(ok.status, 201);
  t.match(await ok.json(), { name: 'x' });
});
