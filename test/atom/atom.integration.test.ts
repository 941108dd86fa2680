// Atom over HTTP (SPEC §5–§7): feeds and entries out, entries in, the round trip, hostile bodies stored nowhere.

import { request } from 'node:http';
import t from 'tap';
import { consumeAtom } from '../helpers/atom-consumer.ts';
import { appServer, eachHandlerForm, send } from '../helpers/server.ts';

const ATOM = 'application/atom+xml';

eachHandlerForm(t, async (t, delegate) => {
  const server = await appServer(t, {
    models: {
      people: {
        fields: {
          name: { type: 'string', required: true },
          age: { type: 'integer' },
          vip: { type: 'boolean' },
          born: { type: 'date' },
          seen: { type: 'date-time' },
          note: { type: 'text' },
          badge: { type: 'string', editable: false },
        },
        calculated_fields: { atom_title: 'Person ${member.name}', atom_summary: 'Born $member.born' },
        calculated_type_fields: { atom_feed_title: 'People & friends' },
      },
      typo: {
        fields: { name: { type: 'string' } },
        calculated_fields: { atom_title: 'Hello $member.nme' },
      },
    },
    resources: { 'people.ts': delegate, 'typo.ts': delegate },
  });
  const url = server.at('/resources/people');

  /** Resolves once the clock is past `updated` (an ISO time, in ms), so that the next write is later. */
  async function clockPast(updated: string): Promise<void> {
    const last = Date.parse(updated);
    while (Date.now() <= last) await new Promise((r) => setImmediate(r));
  }

  /** An Atom entry body with the given fields in its XOXO dl. */
  function entry(fields: Record<string, string>): string {
    const dl = Object.entries(fields).map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('');
    return `<?xml version="1.0" encoding="utf-8"?>
<entry xmlns="http://www.w3.org/2005/Atom">
  <title>ignored</title>
  <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><ol class="xoxo"><li name="people"><dl>${dl}</dl></li></ol></div></content>
</entry>`;
  }

  type Stored = Record<string, unknown>;
  interface Problem {
    code: string;
    detail: string;
    errors?: { field: string }[];
  }

  async function json(path: string): Promise<Stored> {
    const res = await fetch(`${url}${path}`);
    return (await res.json()) as Stored;
  }

  async function total(): Promise<string | null> {
    return (await fetch(url)).headers.get('x-total-count');
  }

  // Three members, each written later than the one before (a later `updated`): ids 1–3.
  t.before(async () => {
    for (const m of [
      { name: 'Ann', age: 30, vip: true, born: '1994-02-28', badge: 'B1' },
      { name: 'Bob', age: 41, vip: false, seen: '2024-05-01T12:00:00+02:00' },
      { name: 'Cy <&>', note: 'line 1\nline 2' },
    ]) {
      const res = await send(url, 'POST', m);
      if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
      await clockPast(((await res.json()) as { updated: string }).updated);
    }
    // Touch Ann last, so that updated-descending order differs from creation order.
    const res = await send(`${url}/1`, 'PUT', { name: 'Ann', age: 31, vip: true, born: '1994-02-28', badge: 'B1' });
    if (res.status !== 200) throw new Error(`seeding update failed: ${res.status} ${await res.text()}`);
  });

  t.test('a list is a feed when Accept asks for Atom, newest updated first', async (t) => {
    const res = await fetch(url, { headers: { accept: ATOM } });
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/atom\+xml/);
    t.equal(res.headers.get('x-total-count'), '3');
    const xml = await res.text();
    const { errors, values } = await consumeAtom(xml, {
      title: 'a:feed/a:title',
      id: 'a:feed/a:id',
      self: "a:feed/a:link[@rel='self']/@href",
      updated: 'a:feed/a:updated',
      entries: 'count(a:feed/a:entry)',
      first: 'a:feed/a:entry[1]/a:id',
      second: 'a:feed/a:entry[2]/a:id',
      third: 'a:feed/a:entry[3]/a:id',
      firstUpdated: 'a:feed/a:entry[1]/a:updated',
      firstTitle: 'a:feed/a:entry[1]/a:title',
      firstSummary: 'a:feed/a:entry[1]/a:summary',
      thirdTitle: 'a:feed/a:entry[3]/a:title',
    });
    t.same(errors, [], 'valid RFC 4287 for libxml2');
    t.match(values, {
      title: 'People & friends',
      id: url,
      self: `${url}?format_as=atom`,
      entries: '3',
      first: `${url}/1`,
      second: `${url}/3`,
      third: `${url}/2`,
      firstTitle: 'Person Ann',
      firstSummary: 'Born 1994-02-28',
      thirdTitle: 'Person Bob',
    });
    t.equal(values.updated, values.firstUpdated, 'feed/updated is the newest member updated');
  });

  t.test('feed/updated is the newest match whatever the page shows', async (t) => {
    const feedUpdated = async (query: string) => {
      const { errors, values } = await consumeAtom(await (await fetch(`${url}?format_as=atom&${query}`)).text(), { updated: 'a:feed/a:updated', first: 'a:feed/a:entry[1]/a:updated' });
      t.same(errors, [], query);
      return values;
    };
    const newest = (await feedUpdated('')).first;
    t.same(await feedUpdated('count=2'), { updated: newest, first: newest }, 'a first page newest first');
    t.equal((await feedUpdated('start=1&count=1')).updated, newest, 'a later page');
    t.equal((await feedUpdated('order_by=name&count=2')).updated, newest, 'a page in another order');
    t.equal((await feedUpdated('order_by=-updated&name=Bob&count=2')).updated, (await feedUpdated('name=Bob')).first, 'a filtered page: its newest match');
    const before = new Date().toISOString();
    const none = await feedUpdated('name=Nobody&count=2');
    t.ok(none.updated >= before && none.first === '', 'no match: updated is now, as for an empty feed');
  });

  t.test('format_as=atom selects Atom, and wins over Accept', async (t) => {
    const res = await fetch(`${url}?format_as=atom`, { headers: { accept: 'application/json' } });
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/atom\+xml/);
    const { errors, values } = await consumeAtom(await res.text(), { entries: 'count(a:feed/a:entry)' });
    t.same(errors, []);
    t.equal(values.entries, '3');
  });

  t.test('order_by and filters apply to feeds as to JSON', async (t) => {
    const res = await fetch(`${url}?format_as=atom&order_by=name&age__gte=30`);
    t.equal(res.headers.get('x-total-count'), '2');
    const { values } = await consumeAtom(await res.text(), { first: 'a:feed/a:entry[1]/a:id', second: 'a:feed/a:entry[2]/a:id', n: 'count(a:feed/a:entry)' });
    t.same(values, { first: `${url}/1`, second: `${url}/2`, n: '2' });
  });

  t.test('a paged feed carries the same first/next/prev links as the Link header', async (t) => {
    const res = await fetch(`${url}?format_as=atom&start=1&count=1`);
    const link = res.headers.get('link') ?? '';
    const { errors, values } = await consumeAtom(await res.text(), {
      first: "a:feed/a:link[@rel='first']/@href",
      next: "a:feed/a:link[@rel='next']/@href",
      prev: "a:feed/a:link[@rel='prev']/@href",
      only: 'a:feed/a:entry/a:id',
    });
    t.same(errors, []);
    t.equal(values.only, `${url}/3`, 'the second member in updated-descending order');
    for (const rel of ['first', 'next', 'prev'] as const) {
      t.ok(values[rel]!.startsWith(`${url}?`), `${rel} is absolute`);
      t.ok(link.includes(`<${values[rel]}>; rel="${rel}"`), `${rel} matches the Link header`);
    }
  });

  t.test('URLs are built from the request Host', async (t) => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(`${url}/2?format_as=atom`, { headers: { host: 'people.example:8443' } }, (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => resolve(data));
      });
      req.on('error', reject);
      req.end();
    });
    const { values } = await consumeAtom(body, { id: 'a:entry/a:id', edit: "a:entry/a:link[@rel='edit']/@href" });
    t.same(values, { id: 'http://people.example:8443/resources/people/2', edit: 'http://people.example:8443/resources/people/2' });
  });

  t.test('retrieve as Atom is an entry document with an ETag; values are canonical', async (t) => {
    const res = await fetch(`${url}/2`, { headers: { accept: ATOM } });
    t.equal(res.status, 200);
    t.ok(res.headers.get('etag'));
    const { errors, values } = await consumeAtom(await res.text(), {
      title: 'a:entry/a:title',
      author: 'a:entry/a:author/a:name',
      seen: "//x:dt[. = 'seen']/following-sibling::x:dd[1]",
      vip: "//x:dt[. = 'vip']/following-sibling::x:dd[1]",
      notes: "count(//x:dt[. = 'note'])",
    });
    t.same(errors, []);
    t.same(values, { title: 'Person Bob', author: 'Author of people 2', seen: '2024-05-01T10:00:00.000Z', vip: 'false', notes: '0' });
  });

  t.test('create with an Atom entry: 201, Location, an entry back, values typed by the model', async (t) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': `${ATOM};type=entry;charset=utf-8`, accept: ATOM },
      body: entry({ name: 'Dee &amp; Co', age: '27', vip: 'true', born: '2000-01-02', seen: '2024-01-01T00:00:00+01:00' }),
    });
    t.equal(res.status, 201);
    const location = res.headers.get('location');
    t.match(location, new RegExp(`^${url}/\\d+$`));
    t.match(res.headers.get('content-type'), /^application\/atom\+xml/);
    const { errors, values } = await consumeAtom(await res.text(), { id: 'a:entry/a:id', title: 'a:entry/a:title' });
    t.same(errors, []);
    t.same(values, { id: location, title: 'Person Dee & Co' });
    const stored = (await (await fetch(location!)).json()) as Stored;
    t.match(stored, { name: 'Dee & Co', age: 27, vip: true, born: '2000-01-02', seen: '2023-12-31T23:00:00.000Z' });
    t.notOk('note' in stored, 'fields without a dt/dd are absent');
  });

  t.test('an Atom body can be answered in JSON: body and response are negotiated separately', async (t) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': ATOM }, body: entry({ name: 'Eve' }) });
    t.equal(res.status, 201);
    t.match(res.headers.get('content-type'), /^application\/json/);
    t.match(await res.json(), { name: 'Eve' });
  });

  t.test('update with an Atom entry replaces the editable fields', async (t) => {
    const res = await fetch(`${url}/3`, {
      method: 'PUT',
      headers: { 'content-type': ATOM, accept: ATOM },
      body: entry({ id: '3', name: 'Cy', note: '' }),
    });
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/atom\+xml/);
    const stored = await json('/3');
    t.match(stored, { id: 3, name: 'Cy', note: '' });
  });

  t.test('round trip: an entry retrieved as Atom and PUT back unchanged changes nothing but updated', async (t) => {
    for (const id of [1, 2, 3]) {
      const before = await json(`/${id}`);
      const got = await fetch(`${url}/${id}?format_as=atom`);
      const etag = got.headers.get('etag')!;
      const xml = await got.text();
      await clockPast(String(before.updated));
      const put = await fetch(`${url}/${id}`, { method: 'PUT', headers: { 'content-type': ATOM, 'if-match': etag }, body: xml });
      t.equal(put.status, 200, `member ${id}: ${put.status === 200 ? 'ok' : await put.text()}`);
      t.not(put.headers.get('etag'), etag, 'a new ETag');
      const after = await json(`/${id}`);
      t.not(after.updated, before.updated, 'updated moved');
      t.ok(String(after.updated) > String(before.updated), 'forward');
      t.same({ ...after, updated: null }, { ...before, updated: null }, `member ${id}: every other field is unchanged`);
    }
  });

  t.test('Atom values the model rejects are 400 invalid-member naming the fields, nothing stored', async (t) => {
    const count = await total();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': ATOM }, body: entry({ name: 'Fay', age: 'old', born: '2024-02-30', extra: 'x' }) });
    t.equal(res.status, 400);
    const problem = (await res.json()) as Problem;
    t.equal(problem.code, 'invalid-member');
    t.same(problem.errors?.map((e) => e.field).sort(), ['age', 'born', 'extra']);
    t.equal(await total(), count);
  });

  const hostile: [string, string, RegExp][] = [
    ['billion laughs', `<?xml version="1.0"?><!DOCTYPE entry [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>${entry({ name: '&b;' }).replace(/^<\?xml[^>]*>/, '')}`, /DOCTYPE is not allowed/],
    ['external entity', `<!DOCTYPE entry [<!ENTITY x SYSTEM "file:///etc/passwd">]>${entry({ name: '&x;' }).replace(/^<\?xml[^>]*>/, '')}`, /DOCTYPE is not allowed/],
    ['undeclared entity', entry({ name: '&nbsp;' }), /entity &nbsp; is not allowed/],
    ['deep nesting', entry({ name: `${'<b>'.repeat(10_000)}x${'</b>'.repeat(10_000)}` }), /nested deeper than/],
    ['huge attribute', entry({ name: 'x' }).replace('<title>', `<title a="${'x'.repeat(100_000)}">`), /longer than/],
    ['a feed', '<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>', /is an Atom feed/],
    ['malformed XML', entry({ name: 'x' }).replace('</entry>', ''), /not well-formed/],
  ];

  for (const [name, body, detail] of hostile) {
    t.test(`${name}: create and update are 400 invalid-atom, nothing stored or changed`, async (t) => {
      const count = await total();
      const before = await json('/2');
      const created = await fetch(url, { method: 'POST', headers: { 'content-type': ATOM }, body });
      t.equal(created.status, 400);
      t.equal(created.headers.get('content-type'), 'application/problem+json');
      const problem = (await created.json()) as Problem;
      t.equal(problem.code, 'invalid-atom');
      t.match(problem.detail, detail);
      const updated = await fetch(`${url}/2`, { method: 'PUT', headers: { 'content-type': ATOM }, body });
      t.equal(updated.status, 400);
      t.equal(((await updated.json()) as Problem).code, 'invalid-atom');
      t.equal(await total(), count, 'no member created');
      t.same(await json('/2'), before, 'member unchanged');
    });
  }

  t.test('an Atom body over the body limit is 413 and nothing is stored', async (t) => {
    const count = await total();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': ATOM }, body: entry({ name: 'x', note: 'n'.repeat(1024 * 1024) }) });
    t.equal(res.status, 413);
    t.equal(await total(), count);
  });

  t.test('a template naming an unknown field makes the model invalid, with the reason', async (t) => {
    const res = await fetch(server.at('/resources/typo'));
    t.equal(res.status, 500);
    const problem = (await res.json()) as Problem;
    t.equal(problem.code, 'model-invalid');
    t.match(problem.detail, 'calculated_fields.atom_title references unknown field "nme"');
  });
});
