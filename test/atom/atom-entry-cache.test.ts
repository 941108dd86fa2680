// Atom keeps the entries of pages it renders from members' JSON texts (atom.ts, entryOfText): a page
// from kept entries is the page rendered afresh, byte for byte, and no kept entry outlives what it
// shows (another member text, collection URL or model is another entry), within a bound.

import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import fc from 'fast-check';
import t from 'tap';
import { runDefault } from '../../src/handler/default-handler.ts';
import type { Member } from '../../src/model/types.ts';
import { atom, keptEntryChars } from '../../src/representation/atom.ts';
import { HttpResponse } from '../../src/server/response.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { ctxOf, employees, fullMember, model } from '../helpers/atom-fixtures.ts';
import { stubExchange } from '../helpers/stub-exchange.ts';

const fromTexts = (ctx: ReturnType<typeof ctxOf>, texts: string[]) => (atom.renderJsonTexts!(ctx, texts) as string[]).join('');
const fromMembers = (ctx: ReturnType<typeof ctxOf>, texts: string[]) => (atom.renderCollection(ctx, texts.map((s) => JSON.parse(s) as Member)) as string[]).join('');

// Text with what XML escapes, forbids or must keep: markup, controls, lone surrogates, non-characters, astral.
const text = fc.string({ unit: fc.constantFrom('a', ' ', '<', '>', '&', '"', "'", '\r', '\n', '\u0000', '\u001f', '\uD800', '\uDFFF', '\uFFFE', 'é', '😀', ']]>'), maxLength: 12 });
const member = fc.record(
  {
    id: fc.nat(),
    updated: fc.integer({ min: 0, max: 4102444800000 }).map((ms) => new Date(ms).toISOString()),
    name: text,
    notes: text,
    age: fc.integer(),
    score: fc.double({ noNaN: true, noDefaultInfinity: true }),
    active: fc.boolean(),
    birthday: fc.constantFrom('1982-02-03', '0001-01-01', '9999-12-31'),
  },
  // Absent fields have no key: they get no dt/dd.
  { requiredKeys: ['id', 'updated', 'name'] },
);

t.test('a page from texts is the page from their members, rendered afresh and from kept entries', async (t) => {
  fc.assert(
    fc.property(fc.array(member, { maxLength: 5 }), fc.constantFrom('http://a.test/resources/employees', 'http://b.test:8080/x/resources/employees'), (members, collectionUrl) => {
      // A fixed feed updated: without one the feed says now, which moves between two renders.
      const ctx = ctxOf(employees, { collectionUrl, total: members.length, newest: '2024-01-01T00:00:00.000Z' });
      const texts = members.map((m) => JSON.stringify(m));
      const expected = fromMembers(ctx, texts);
      return fromTexts(ctx, texts) === expected && fromTexts(ctx, texts) === expected;
    }),
  );
});

t.test('another text, collection URL or model is another entry', async (t) => {
  const ctx = ctxOf(employees);
  const before = JSON.stringify(fullMember(3));
  // The same id and updated (two writes within a millisecond, by two processes): the text tells them apart.
  const after = JSON.stringify(fullMember(3, { name: 'Bo Changed' }));
  t.match(fromTexts(ctx, [before]), /Ann Smith/);
  t.match(fromTexts(ctx, [after]), /Bo Changed/);
  t.notMatch(fromTexts(ctx, [after]), /Ann Smith/);
  const elsewhere = fromTexts(ctxOf(employees, { collectionUrl: 'http://other.test/resources/employees' }), [before]);
  t.match(elsewhere, /href="http:\/\/other.test\/resources\/employees\/3"/);
  t.notMatch(elsewhere, /example\.test/, 'no link of the first URL');
  // The same model file changed (a new Model object): its template applies to the entries it renders.
  const titled = model('employees', { fields: { name: { type: 'string' } }, calculated_fields: { atom_title: 'Now $member.name' } });
  t.match(fromTexts(ctxOf(titled), [JSON.stringify({ id: 3, updated: '2024-05-06T07:08:09.123Z', name: 'Ann Smith' })]), /<title>Now Ann Smith<\/title>/);
});

t.test('a member written again with the same updated is listed as it is now, not as it was', async (t) => {
  const people = model('people', { fields: { name: { type: 'string' } } });
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  const updated = '2025-01-01T00:00:00.000Z';
  const { id } = await store.insert(people, { name: 'first' }, updated);
  const page = async () => {
    const ex = stubExchange({ collection: 'people', handler: '', store });
    const params = new URLSearchParams('count=10');
    const written: string[] = [];
    const res = Object.assign(new EventEmitter(), { statusCode: 200, destroyed: false, setHeader() {}, removeHeader() {}, write: (c: string) => written.push(c) > 0, end: (c?: string) => void (c !== undefined && written.push(c)) });
    const sink = new HttpResponse({ method: 'GET', destroyed: false, complete: true } as IncomingMessage, res as unknown as ServerResponse, 30_000);
    Object.assign(ex, { model: people, params: new Map(params), query: [...params], representation: atom, res: sink });
    await runDefault(ex);
    return written.join('');
  };
  t.match(await page(), /<dd>first<\/dd>/);
  await store.replace(people, id, { name: 'second' }, updated);
  const now = await page();
  t.match(now, /<dd>second<\/dd>/);
  t.notMatch(now, /<dd>first<\/dd>/);
});

t.test('the entries kept stay within their bound', async (t) => {
  // A fixed feed updated: without one the feed says now, which moves between two renders.
  const ctx = ctxOf(employees, { newest: '2024-01-01T00:00:00.000Z' });
  const big = 'x'.repeat(8000);
  // About 9 MiB of entries rendered, twice the bound (4 Mi code units).
  for (let i = 0; i < 1200; i++) fromTexts(ctx, [JSON.stringify(fullMember(i, { notes: big }))]);
  t.ok(keptEntryChars() > 0 && keptEntryChars() <= 4 * 1024 * 1024, `${keptEntryChars()} code units kept`);
  // A text over the kept size is rendered each time, and not kept.
  const kept = keptEntryChars();
  const huge = JSON.stringify(fullMember(99_999, { notes: 'y'.repeat(20_000) }));
  t.equal(fromTexts(ctx, [huge]), fromMembers(ctx, [huge]));
  t.equal(keptEntryChars(), kept);
});
