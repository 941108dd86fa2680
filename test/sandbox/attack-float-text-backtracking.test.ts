// Attack: a float value given as text (a query parameter, a handler's model-API query, an Atom
// body) that is a long run of digits not ending as a number. The pattern that read such text,
// `\d+\.?\d*`, could split the run between its two `\d`s in every way, and V8 tried each on the
// server's event loop before refusing it: 250 ms for the 8,000 digits a URL holds, 2 s for 60,000
// in an Atom body, minutes for a body's megabyte or a handler's 4 Mi-character query, while every
// tenant's requests waited. The pattern now matches each text one way only.

import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const PRICED = { fields: { name: { type: 'string' }, price: { type: 'float' } } };
const s = await sandboxServer({
  models: { priced: PRICED, probe: PEOPLE },
  resources: {
    'priced.ts': 'svc.delegate();\n',
    'probe.ts': `export function onList() {
      const digits = '1'.repeat(Number(zget('/request/params/digits')));
      const out: Record<string, string> = {};
      for (const [name, query] of Object.entries({ gt: { price__gt: digits + 'x' }, exact: { price: digits + 'e' + digits + 'x' } })) {
        try { svc.collection('priced').list(query); out[name] = 'listed'; } catch (e) { out[name] = (e as Error).message; }
      }
      zput('/request/json/output', out);
      render();
    }\n`,
  },
});
t.teardown(() => s.close());

/** A request's status, body and time in milliseconds. */
async function timed(url: string, init?: RequestInit): Promise<{ status: number; body: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url, init);
  const body = await res.json();
  return { status: res.status, body, ms: performance.now() - t0 };
}

// Linear work takes milliseconds for these; the backtracking took minutes (the test's timeout).
const BOUND_MS = 5000;

t.test("a handler's model-API query: refused as no number at once", async (t) => {
  const r = await timed(s.at('/resources/probe?digits=1000000'));
  t.equal(r.status, 200);
  t.match(r.body, { gt: /price__gt must be a number/, exact: /price must be a number/ });
  t.ok(r.ms < BOUND_MS, `answered in ${r.ms.toFixed(0)} ms`);
});

t.test('an Atom body: 400 invalid-member at once', async (t) => {
  const entry =
    '<entry xmlns="http://www.w3.org/2005/Atom"><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">' +
    `<dl><dt>name</dt><dd>a</dd><dt>price</dt><dd>${'1'.repeat(1_000_000)}x</dd></dl></div></content></entry>`;
  const r = await timed(s.at('/resources/priced'), { method: 'POST', headers: { 'content-type': 'application/atom+xml' }, body: entry });
  t.equal(r.status, 400);
  t.match(r.body, { code: 'invalid-member', errors: [{ field: 'price', message: 'must be a number' }] });
  t.ok(r.ms < BOUND_MS, `answered in ${r.ms.toFixed(0)} ms`);
});

t.test('a URL: 400 invalid-query at once', async (t) => {
  const r = await timed(s.at(`/resources/priced?price__lt=${'1'.repeat(8000)}x`));
  t.equal(r.status, 400);
  t.match(r.body, { code: 'invalid-query', errors: [{ parameter: 'price__lt', message: 'must be a number' }] });
  t.ok(r.ms < BOUND_MS, `answered in ${r.ms.toFixed(0)} ms`);
});

t.test('numbers are read as before', async (t) => {
  for (const [price, want] of [['1', 1], ['-1.5', -1.5], ['2.', 2], ['.5', 0.5], ['1e3', 1000], ['+2.5E-1', 0.25]] as const) {
    const created = await timed(s.at('/resources/priced'), { method: 'POST', headers: { 'content-type': 'application/atom+xml' }, body: `<entry xmlns="http://www.w3.org/2005/Atom"><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><dl><dt>price</dt><dd>${price}</dd></dl></div></content></entry>` });
    t.equal(created.status, 201, price);
    t.equal(created.body.price, want, price);
  }
  const found = await timed(s.at('/resources/priced?price__gte=0.25&price__lte=1e1&order_by=price'));
  t.same(found.body.map((m: { price: number }) => m.price), [0.25, 0.5, 1, 2]);
});
