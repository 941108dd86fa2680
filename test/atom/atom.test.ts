// The Atom representation (SPEC §7): every default, every customisation key, escaping, paging, streaming, input.

import t from 'tap';
import { SvcError } from '../../src/errors.ts';
import type { Member } from '../../src/model/types.ts';
import { validateUpdate } from '../../src/model/validate.ts';
import { atom, templateErrors } from '../../src/representation/atom.ts';
import { json } from '../../src/representation/json.ts';
import { consumeAtom } from '../helpers/atom-consumer.ts';
import { COLLECTION_URL, ctxOf, employees, entryBody, fullMember, iterate, model, rejectsAtom, renderFeed } from '../helpers/atom-fixtures.ts';

const MEMBER_URL = `${COLLECTION_URL}/3`;

t.test('the representation declares itself for negotiation and the default handler', async (t) => {
  t.equal(atom.name, 'atom');
  t.equal(atom.mediaType, 'application/atom+xml');
  t.match(atom.contentType, /^application\/atom\+xml;\s*charset=utf-8$/);
  t.same(atom.defaultOrder, [{ field: 'updated', desc: true }], 'Atom lists default to updated descending');
  t.equal(atom.needsNewest, true);
});

t.test('the independent consumer bites: it rejects entries RFC 4287 forbids', async (t) => {
  const good = atom.renderMember(ctxOf(employees), fullMember());
  t.same((await consumeAtom(good)).errors, []);
  const noId = await consumeAtom(good.replace(/<id>[^<]*<\/id>/, ''));
  t.ok(noId.errors.some((e) => /Expecting an element id/.test(e)), 'a missing atom:id is a schema error');
  const noAuthor = await consumeAtom(good.replace(/<author>.*<\/author>/, ''));
  t.ok(noAuthor.errors.some((e) => /must have an atom:author/.test(e)), 'a missing author is a Schematron error');
  const badDate = await consumeAtom(good.replace(/<updated>[^<]*</, '<updated>yesterday<'));
  t.not(badDate.errors.length, 0, 'updated must be an xsd:dateTime');
});

t.test('an entry has every default of the SPEC §7 table, valid against RFC 4287', async (t) => {
  const xml = atom.renderMember(ctxOf(employees), fullMember());
  t.match(xml, /^<\?xml version="1.0" encoding="utf-8"\?>\n<entry xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
  const { errors, values } = await consumeAtom(xml, {
    title: 'a:entry/a:title',
    alternate: 'a:entry/a:link[not(@rel)]/@href',
    edit: "a:entry/a:link[@rel='edit']/@href",
    id: 'a:entry/a:id',
    updated: 'a:entry/a:updated',
    author: 'a:entry/a:author/a:name',
    summaries: 'count(a:entry/a:summary)',
    contentType: 'a:entry/a:content/@type',
    xoxoClass: 'a:entry/a:content/x:div/x:ol/@class',
    liName: 'a:entry/a:content/x:div/x:ol/x:li/@name',
    pairs: 'count(a:entry/a:content/x:div/x:ol/x:li/x:dl/x:dt)',
  });
  t.same(errors, [], 'libxml2 finds it valid against the RFC 4287 grammar');
  t.same(values, {
    title: 'Title of employees 3',
    alternate: `${MEMBER_URL}?format_as=atom`,
    edit: MEMBER_URL,
    id: MEMBER_URL,
    updated: '2024-05-06T07:08:09.123Z',
    author: 'Author of employees 3',
    summaries: '0',
    contentType: 'xhtml',
    xoxoClass: 'xoxo',
    liName: 'employees',
    pairs: '9',
  });
});

t.test('the XOXO dl lists id, updated, then declared fields in model order, values written canonically', async (t) => {
  const xml = atom.renderMember(ctxOf(employees), fullMember(3, { active: true, score: 1e21, age: -7 }));
  const dl = 'a:entry/a:content/x:div/x:ol/x:li/x:dl';
  const names = ['id', 'updated', 'name', 'notes', 'age', 'score', 'active', 'birthday', 'hired'];
  const queries: Record<string, string> = {};
  names.forEach((n, i) => {
    queries[`dt${i}`] = `${dl}/x:dt[${i + 1}]`;
    queries[n] = `${dl}/x:dt[. = '${n}']/following-sibling::x:dd[1]`;
  });
  const { errors, values } = await consumeAtom(xml, queries);
  t.same(errors, []);
  t.same(names.map((_, i) => values[`dt${i}`]), names, 'model order');
  t.equal(values.id, '3');
  t.equal(values.updated, '2024-05-06T07:08:09.123Z', 'date-time in UTC with Z');
  t.equal(values.hired, '2020-01-02T03:04:05.000Z');
  t.equal(values.birthday, '1982-02-03', 'date as YYYY-MM-DD');
  t.equal(values.active, 'true', 'boolean as true/false');
  t.equal(values.age, '-7');
  t.equal(values.score, '1e+21');
  t.equal(values.notes, 'first line\nsecond line', 'newlines kept');
});

t.test('absent fields have no dt/dd; an empty string has an empty dd', async (t) => {
  const m = { id: 5, updated: '2024-01-01T00:00:00.000Z', name: '' } as Member;
  const xml = atom.renderMember(ctxOf(employees), m);
  t.match(xml, '<dl><dt>id</dt><dd>5</dd><dt>updated</dt><dd>2024-01-01T00:00:00.000Z</dd><dt>name</dt><dd></dd></dl>');
  t.notMatch(xml, 'notes');
  t.same({ ...atom.parseMember(xml, employees).values }, { id: '5', updated: '2024-01-01T00:00:00.000Z', name: '' });
});

t.test('a feed has every default of the SPEC §7 table, valid against RFC 4287', async (t) => {
  const members = [fullMember(2, { updated: '2024-05-07T00:00:00.000Z' }), fullMember(1)];
  const xml = await renderFeed(ctxOf(employees, { newest: '2024-05-07T00:00:00.000Z', total: 2 }), members);
  const { errors, values } = await consumeAtom(xml, {
    title: 'a:feed/a:title',
    alternate: 'a:feed/a:link[not(@rel)]/@href',
    self: "a:feed/a:link[@rel='self']/@href",
    id: 'a:feed/a:id',
    updated: 'a:feed/a:updated',
    entries: 'count(a:feed/a:entry)',
    authors: 'count(a:feed/a:entry/a:author/a:name)',
    first: 'a:feed/a:entry[1]/a:id',
    second: 'a:feed/a:entry[2]/a:id',
    firstTitle: 'a:feed/a:entry[1]/a:title',
    firstEdit: "a:feed/a:entry[1]/a:link[@rel='edit']/@href",
    firstAuthor: 'a:feed/a:entry[1]/a:author/a:name',
    paging: "count(a:feed/a:link[@rel='first' or @rel='next' or @rel='prev'])",
  });
  t.same(errors, []);
  t.same(values, {
    title: 'Title of Type employees Feed',
    alternate: `${COLLECTION_URL}?format_as=atom`,
    self: `${COLLECTION_URL}?format_as=atom`,
    id: COLLECTION_URL,
    updated: '2024-05-07T00:00:00.000Z',
    entries: '2',
    authors: '2',
    first: `${COLLECTION_URL}/2`,
    second: `${COLLECTION_URL}/1`,
    firstTitle: 'Title of employees 2',
    firstEdit: `${COLLECTION_URL}/2`,
    firstAuthor: 'Author of employees 2',
    paging: '0',
  }, 'entries in the order given (the store applies updated descending)');
});

t.test('an empty feed is valid and its updated is now', async (t) => {
  const before = new Date().toISOString();
  const xml = await renderFeed(ctxOf(employees, { total: 0 }), []);
  const after = new Date().toISOString();
  const { errors, values } = await consumeAtom(xml, { updated: 'a:feed/a:updated', entries: 'count(a:feed/a:entry)' });
  t.same(errors, []);
  t.equal(values.entries, '0');
  t.ok(values.updated! >= before && values.updated! <= after, `updated ${values.updated} is now`);
});

t.test('a paged feed carries first/next/prev links, escaped and read back exactly', async (t) => {
  const links = {
    first: `${COLLECTION_URL}?name__contains=a%26b&start=0&count=2`,
    prev: `${COLLECTION_URL}?name__contains=a%26b&start=0&count=2`,
    next: `${COLLECTION_URL}?name__contains=a%26b&start=4&count=2`,
  };
  const xml = await renderFeed(ctxOf(employees, { links, newest: '2024-05-06T07:08:09.123Z' }), [fullMember(3), fullMember(4)]);
  t.match(xml, 'start=0&amp;count=2');
  const { errors, values } = await consumeAtom(xml, {
    first: "a:feed/a:link[@rel='first']/@href",
    prev: "a:feed/a:link[@rel='prev']/@href",
    next: "a:feed/a:link[@rel='next']/@href",
  });
  t.same(errors, []);
  t.same(values, links);

  const firstPage = await renderFeed(ctxOf(employees, { links: { first: links.first, next: links.next } }), [fullMember(1)]);
  t.notMatch(firstPage, 'rel="prev"', 'no prev link on the first page');
});

t.test('renderCollection streams: many members give many chunks, and the first comes before the last member is read', async (t) => {
  let pulled = 0;
  let pulledAtFirstChunk = -1;
  async function* members(): AsyncIterable<Member> {
    for (let id = 1; id <= 2000; id++) {
      pulled++;
      yield fullMember(id);
    }
  }
  const chunks: string[] = [];
  for await (const chunk of atom.renderCollection(ctxOf(employees, { newest: '2024-05-06T07:08:09.123Z' }), members())) {
    if (chunks.length === 0) pulledAtFirstChunk = pulled;
    chunks.push(chunk);
  }
  t.ok(chunks.length > 10, `${chunks.length} chunks`);
  t.ok(pulledAtFirstChunk < 2000, `first chunk after ${pulledAtFirstChunk} of 2000 members`);
  const { errors, values } = await consumeAtom(chunks.join(''), { entries: 'count(a:feed/a:entry)', last: 'a:feed/a:entry[2000]/a:id' });
  t.same(errors, []);
  t.same(values, { entries: '2000', last: `${COLLECTION_URL}/2000` });
});

t.test('a small feed is a single chunk: a first page costs one write', async (t) => {
  const chunks: string[] = [];
  for await (const c of atom.renderCollection(ctxOf(employees), iterate([fullMember(1), fullMember(2)]))) chunks.push(c);
  t.equal(chunks.length, 1);
});

t.test('a page given as an array is the same feed as its members one by one, in one chunk (JSON too)', async (t) => {
  const members = [fullMember(1), fullMember(2, { name: 'Zoë <&> "x"' }), fullMember(3)];
  const ctx = ctxOf(employees, { newest: '2024-05-06T07:08:09.123Z', links: { first: `${COLLECTION_URL}?count=3`, next: `${COLLECTION_URL}?start=3&count=3` } });
  for (const rep of [atom, json]) {
    let streamed = '';
    for await (const c of rep.renderCollection(ctx, iterate(members))) streamed += c;
    const whole = rep.renderCollection(ctx, members);
    t.ok(Array.isArray(whole), `${rep.name}: an array of chunks, rendered at once`);
    t.same(whole, [streamed], `${rep.name}: the same text`);
  }
  t.same(JSON.parse((json.renderJsonTexts!(ctx, members.map((m) => JSON.stringify(m))) as string[]).join('')), members, 'JSON from texts too');
});

t.test('customisation: every key, both template syntaxes', async (t) => {
  const custom = model('people', {
    fields: { first: { type: 'string' }, last: { type: 'string' }, born: { type: 'date' }, vip: { type: 'boolean' } },
    calculated_fields: {
      atom_title: 'Person $member.first ${member.last}',
      atom_author_name: '${member.first}son, $member.id',
      atom_summary: 'Born $member.born, vip=$member.vip, missing=[$member.last]',
    },
    calculated_type_fields: { atom_feed_title: 'Our people' },
  });
  t.same(templateErrors(custom), []);
  const m = { id: 7, updated: '2024-05-06T07:08:09.123Z', first: 'Bo', born: '1999-12-31', vip: true } as Member;
  const entryXml = atom.renderMember(ctxOf(custom), m);
  const e = await consumeAtom(entryXml, { title: 'a:entry/a:title', author: 'a:entry/a:author/a:name', summary: 'a:entry/a:summary' });
  t.same(e.errors, []);
  t.same(e.values, {
    title: 'Person Bo ',
    author: 'Boson, 7',
    summary: 'Born 1999-12-31, vip=true, missing=[]',
  }, 'an absent field substitutes as the empty string');
  const feedXml = await renderFeed(ctxOf(custom, { newest: m.updated }), [m]);
  const f = await consumeAtom(feedXml, { title: 'a:feed/a:title', entryTitle: 'a:feed/a:entry/a:title', summary: 'a:feed/a:entry/a:summary' });
  t.same(f.errors, []);
  t.same(f.values, { title: 'Our people', entryTitle: 'Person Bo ', summary: 'Born 1999-12-31, vip=true, missing=[]' });
});

t.test('${member.x} may be followed directly by name characters; $member.x ends at the first non-identifier character', async (t) => {
  const m2 = model('things', {
    fields: { n: { type: 'integer' }, label: { type: 'string' } },
    calculated_fields: { atom_title: '${member.n}th-$member.label. Cost: $5 ($member)' },
  });
  t.same(templateErrors(m2), []);
  const xml = atom.renderMember(ctxOf(m2), { id: 1, updated: '2024-01-01T00:00:00.000Z', n: 4, label: 'x' } as Member);
  t.match(xml, '<title>4th-x. Cost: $5 ($member)</title>');
});

t.test('XML special characters in values and in templates are escaped, and read back exactly by libxml2', async (t) => {
  const nasty = `<b>&amp; "quoted" 'single' ]]> \r\n tab\t ünï 😀`;
  const m2 = model('notes', {
    fields: { body: { type: 'text' } },
    calculated_fields: { atom_title: `<&>"' $member.body`, atom_author_name: 'A&B', atom_summary: '${member.body}' },
    calculated_type_fields: { atom_feed_title: `Feed <&>"'` },
  });
  const m = { id: 1, updated: '2024-01-01T00:00:00.000Z', body: nasty } as Member;
  const entryXml = atom.renderMember(ctxOf(m2), m);
  const e = await consumeAtom(entryXml, {
    title: 'a:entry/a:title',
    author: 'a:entry/a:author/a:name',
    summary: 'a:entry/a:summary',
    dd: 'a:entry/a:content/x:div/x:ol/x:li/x:dl/x:dd[3]',
  });
  t.same(e.errors, []);
  t.same(e.values, { title: `<&>"' ${nasty}`, author: 'A&B', summary: nasty, dd: nasty });
  const feed = await consumeAtom(await renderFeed(ctxOf(m2), [m]), { title: 'a:feed/a:title' });
  t.same(feed.errors, []);
  t.equal(feed.values.title, `Feed <&>"'`);
});

t.test('characters XML 1.0 cannot carry become U+FFFD, so the document stays well-formed', async (t) => {
  const m2 = model('notes', { fields: { body: { type: 'text' } } });
  const xml = atom.renderMember(ctxOf(m2), { id: 1, updated: '2024-01-01T00:00:00.000Z', body: 'a\u0000b\u0007c\uFFFFd\uD800e' } as Member);
  const { errors, values } = await consumeAtom(xml, { dd: 'a:entry/a:content/x:div/x:ol/x:li/x:dl/x:dd[3]' });
  t.same(errors, []);
  t.equal(values.dd, 'a\uFFFDb\uFFFDc\uFFFDd\uFFFDe');
});

t.test('URLs are absolute from the context and escaped', async (t) => {
  const xml = atom.renderMember({ model: employees, collectionUrl: 'http://a&b.test/resources/employees' }, fullMember(1));
  const { errors, values } = await consumeAtom(xml, { id: 'a:entry/a:id', edit: "a:entry/a:link[@rel='edit']/@href" });
  t.same(errors, []);
  t.same(values, { id: 'http://a&b.test/resources/employees/1', edit: 'http://a&b.test/resources/employees/1' });
});

t.test('templateErrors reports every template problem, and nothing for a sound model', async (t) => {
  t.same(templateErrors(employees), []);
  const bad = model('bad', {
    fields: { name: { type: 'string' } },
    calculated_fields: {
      atom_title: 'T $member.nme',
      atom_author_name: '${member.author}',
      atom_summary: 'S $member. and ${member.name}',
      atom_subtitle: 'x',
    },
    calculated_type_fields: { atom_feed_title: 'Feed of $member.name', atom_logo: 'x' },
  });
  t.same(templateErrors(bad).sort(), [
    'calculated_fields.atom_author_name references unknown field "author"',
    'calculated_fields.atom_subtitle is not a known key (known: atom_title, atom_author_name, atom_summary)',
    'calculated_fields.atom_summary has a reference without a field name: write $member.<field> or ${member.<field>}',
    'calculated_fields.atom_title references unknown field "nme"',
    'calculated_type_fields.atom_feed_title references member field "name", but a feed title has no member: use literal text',
    'calculated_type_fields.atom_logo is not a known key (known: atom_feed_title)',
  ]);
  const implicit = model('implicit', { fields: {}, calculated_fields: { atom_title: '$member.id at ${member.updated}' } });
  t.same(templateErrors(implicit), [], 'id and updated are fields too');
});

t.test('templates are compiled once per model object', async (t) => {
  const m = { id: 1, updated: '2024-01-01T00:00:00.000Z' } as Member;
  const a = model('cached', { fields: {}, calculated_fields: { atom_title: 'one' } });
  const b = model('cached', { fields: {}, calculated_fields: { atom_title: 'two' } });
  t.match(atom.renderMember(ctxOf(a), m), '<title>one</title>');
  t.match(atom.renderMember(ctxOf(b), m), '<title>two</title>', 'a reloaded model is a new object with its own templates');
  t.match(atom.renderMember(ctxOf(a), m), '<title>one</title>');
});

t.test('round trip: a rendered entry parses back to the same field strings, and an update from it changes nothing', async (t) => {
  const members = [
    fullMember(),
    fullMember(4, { name: `  <&>"' ]]> x  `, notes: 'a\r\nb\rc\n\td 😀', active: true, score: -0.125 }),
    { id: 9, updated: '2024-01-01T00:00:00.000Z', name: 'only' } as Member,
  ];
  for (const m of members) {
    const parsed = atom.parseMember(atom.renderMember(ctxOf(employees), m), employees);
    t.equal(parsed.text, true);
    const expected = Object.fromEntries(Object.entries(m).map(([k, v]) => [k, String(v)]));
    t.same({ ...parsed.values }, expected, `member ${m.id}: same strings`);
    const data = validateUpdate(employees, parsed.values, true, m);
    const { id: _id, updated: _updated, ...declared } = m;
    t.same({ ...data }, declared, `member ${m.id}: the validator types them back to the stored values`);
  }
});

t.test('input: namespace prefixes, a dl straight in the div, CDATA, references, comments (an empty one too) and markup in a dd', async (t) => {
  const body = `<?xml version='1.0' encoding='utf-8'?>
<!-- a client comment -->
<atom:entry xmlns:atom="http://www.w3.org/2005/Atom" xmlns:h="http://www.w3.org/1999/xhtml">
  <atom:title type="text">ignored</atom:title>
  <atom:id>urn:ignored</atom:id>
  <atom:content type="xhtml">
    <h:div>
      <h:dl>
        <h:dt> name </h:dt><h:dd><![CDATA[<Ann & co>]]></h:dd>
        <!-- between pairs --><!---->
        <h:dt>notes</h:dt><h:dd>&lt;&#65;&#x42;&gt; &amp; &quot;&apos; <h:em>emph</h:em>!</h:dd>
        <h:dt>age</h:dt><h:dd/>
      </h:dl>
      <h:dl><h:dt>ignored</h:dt><h:dd>second dl</h:dd></h:dl>
    </h:div>
  </atom:content>
</atom:entry>`;
  const parsed = atom.parseMember(body, employees);
  t.same({ ...parsed.values }, { name: '<Ann & co>', notes: `<AB> & "' emph!`, age: '' });
});

t.test('input: a field named __proto__ is plain data (the validator rejects it), never a prototype', async (t) => {
  const parsed = atom.parseMember(entryBody('<dt>__proto__</dt><dd>x</dd><dt>name</dt><dd>y</dd>'), employees);
  t.equal(Object.getPrototypeOf(parsed.values), null);
  t.same(Object.keys(parsed.values), ['__proto__', 'name']);
  t.equal(({} as Record<string, unknown>).x, undefined);
});

t.test('input errors are 400 invalid-atom with a message that says what to fix', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['empty body', '', /no root element/],
    ['not XML', 'name=Ann', /char 'n' is not expected/],
    ['JSON', '{"name":"Ann"}', /not well-formed/],
    ['unclosed element', entryBody('<dt>name</dt><dd>x</dd>').replace('</entry>', ''), /Unclosed tag 'entry'/],
    ['mismatched end tag', entryBody('<dt>name</dt><dd>x</dt>'), /Expected closing tag 'dd' .* instead of closing tag 'dt'/],
    ['bare ampersand', entryBody('<dt>name</dt><dd>a & b</dd>'), /write &amp; for a literal ampersand/],
    ['< in an attribute', entryBody('<dt title="a<b">name</dt><dd>x</dd>'), /"<" is not allowed in an attribute value/],
    ['unquoted attribute', entryBody('<dt title=a>name</dt><dd>x</dd>'), /Attribute 'title' is without value/],
    ['repeated attribute', entryBody('<dt a="1" a="2">name</dt><dd>x</dd>'), /Attribute 'a' is repeated/],
    ['two roots', `${entryBody('')}<entry/>`, /more than one root element/],
    ['undeclared prefix', entryBody('<h:dt>name</h:dt><dd>x</dd>'), /prefix "h" of "h:dt" is not declared/],
    ['late XML declaration', `<!-- c -->${entryBody('')}`, /XML declaration allowed only at the start of the document/],
    ['other encoding', entryBody('').replace('UTF-8', 'ISO-8859-1'), /encoding "ISO-8859-1" is not supported: send UTF-8/],
    ['illegal character reference', entryBody('<dt>name</dt><dd>&#1;</dd>'), /&#1; does not refer to a character allowed in XML/],
    ['control character', entryBody('<dt>name</dt><dd>\u0001</dd>'), /character U\+0001 is not allowed/],
    ['named entity', entryBody('<dt>name</dt><dd>&nbsp;</dd>'), /the entity &nbsp; is not allowed/],
    [']]> in text', entryBody('<dt>name</dt><dd>a]]>b</dd>'), /"\]\]>" is not allowed in text/],
    ['-- in a comment', entryBody('<!-- a -- b -->'), /"--" is not allowed inside a comment/],
    ['not Atom', '<entry><content type="xhtml"/></entry>', /root element is <entry> in no namespace: send an Atom entry/],
    ['no content', '<entry xmlns="http://www.w3.org/2005/Atom"><title>t</title></entry>', /has no <content>/],
    ['text content', '<entry xmlns="http://www.w3.org/2005/Atom"><content>name=Ann</content></entry>', /type="text": send type="xhtml"/],
    ['two contents', entryBody('').replace('</entry>', '<content type="xhtml"/></entry>'), /more than one <content>/],
    ['no dl', '<entry xmlns="http://www.w3.org/2005/Atom"><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>x</p></div></content></entry>', /holds no XOXO <dl>/],
    ['dl outside XHTML', '<entry xmlns="http://www.w3.org/2005/Atom"><content type="xhtml"><div><dl><dt>name</dt><dd>x</dd></dl></div></content></entry>', /holds no XOXO <dl> in the XHTML namespace/],
    ['dd without dt', entryBody('<dd>x</dd>'), /<dd> of the XOXO <dl> has no <dt> before it/],
    ['dt without dd', entryBody('<dt>name</dt><dt>notes</dt><dd>x</dd>'), /<dt>name<\/dt> has no <dd>/],
    ['last dt without dd', entryBody('<dt>name</dt>'), /<dt>name<\/dt> has no <dd>/],
    ['empty dt', entryBody('<dt> </dt><dd>x</dd>'), /<dt> of the XOXO <dl> is empty/],
    ['duplicate field', entryBody('<dt>name</dt><dd>x</dd><dt>name</dt><dd>y</dd>'), /field "name" appears more than once/],
    ['other element in the dl', entryBody('<div><dt>name</dt><dd>x</dd></div>'), /holds a <div>: put only <dt>field<\/dt><dd>value<\/dd> pairs in it/],
    // Checks around fast-xml-parser, where it or its validator would pass the document.
    ['text after a root that closes itself', '<entry xmlns="http://www.w3.org/2005/Atom"/>name=Ann', /text is not allowed after the root element/],
    ['two roots that close themselves', '<entry xmlns="http://www.w3.org/2005/Atom"/><entry xmlns="http://www.w3.org/2005/Atom"/>', /more than one root element/],
    ['& in an attribute', entryBody('<dt title="a & b">name</dt><dd>x</dd>'), /write &amp; for a literal ampersand/],
    ['named entity in an attribute', entryBody('<dt title="&nbsp;">name</dt><dd>x</dd>'), /the entity &nbsp; is not allowed/],
    ['two colons in a name', entryBody('<dt>name</dt><dd><a:b:c xmlns:a="urn:a"/></dd>'), /"a:b:c" is not a valid qualified name/],
    ['local part that cannot start a name', entryBody('<dt>name</dt><dd><a:1b xmlns:a="urn:a"/></dd>'), /"a:1b" is not a valid qualified name/],
    ['declared prefix that cannot start a name', entryBody('<dt xmlns:-a="urn:a">name</dt><dd>x</dd>'), /"xmlns:-a" is not a valid qualified name/],
    ['colon at the start of a name', entryBody('<dt>name</dt><dd><:b/></dd>'), /":b" is not a valid qualified name/],
    ['same attribute under two prefixes', entryBody('<dt xmlns:a="urn:x" xmlns:b="urn:x" a:t="1" b:t="2">name</dt><dd>x</dd>'), /attribute "b:t" is repeated \(same namespace and name\)/],
    ['reserved name', entryBody('<dt>name</dt><dd><constructor/></dd>'), /the name "constructor" is not accepted/],
    ['unclosed comment', entryBody('<dt>name</dt><dd><!-- x</dd>'), /unterminated comment/],
    ['unclosed CDATA', entryBody('<dt>name</dt><dd><![CDATA[ x</dd>'), /unterminated CDATA section/],
    ['unclosed start tag', '<entry xmlns="http://www.w3.org/2005/Atom"><title', /a tag is not closed/],
  ];
  for (const [name, body, message] of cases) {
    t.test(name, async (t) => {
      rejectsAtom(t, body, message);
    });
  }
});

t.test('errors name the line and column of a well-formedness problem', async (t) => {
  try {
    atom.parseMember('<entry xmlns="http://www.w3.org/2005/Atom">\n  <title>x</titel>\n</entry>', employees);
    t.fail('should throw');
  } catch (e) {
    t.ok(e instanceof SvcError);
    t.match((e as SvcError).message, /Expected closing tag 'title' \(opened in line 2, col 3\) instead of closing tag 'titel' \(line 2, column 11\)/);
  }
});

t.test('a customised title or author that renders empty falls back to the default', async (t) => {
  const m = model('things', { fields: { name: { type: 'string' }, email: { type: 'string' } }, calculated_fields: { atom_title: '$member.name', atom_author_name: '${member.email}' } });
  const xml = atom.renderMember(ctxOf(m), { id: 3, updated: '2024-01-01T00:00:00.000Z', name: 'Ann' });
  t.match(xml, '<title>Ann</title>');
  t.match(xml, '<author><name>Author of things 3</name></author>');
  const bare = atom.renderMember(ctxOf(m), { id: 4, updated: '2024-01-01T00:00:00.000Z' });
  t.match(bare, '<title>Title of things 4</title>');
});
