// Collection queries over HTTP (SPEC §6): filters, paging, ordering, totals, links and 400s.

import t from 'tap';
import { appServer, eachHandlerForm, send } from '../helpers/server.ts';

eachHandlerForm(t, async (t, delegate) => {
  const server = await appServer(t, {
    models: {
      items: {
        fields: {
          name: { type: 'string' },
          count: { type: 'integer' },
          price: { type: 'float' },
          on: { type: 'boolean' },
          day: { type: 'date' },
          at: { type: 'date-time' },
        },
      },
      empty: { fields: { name: { type: 'string' } } },
    },
    resources: { 'items.ts': delegate, 'empty.js': delegate },
  });
  const url = server.at('/resources/items');

  // Seven members, created in this order: ids 1–7.
  const seed = [
    { name: 'apple', count: 3, price: 1.5, on: true, day: '2024-01-05', at: '2024-01-05T10:00:00Z' },
    { name: 'Banana', count: 10, price: 0.25, on: false, day: '2024-02-05', at: '2024-02-05T23:30:00Z' },
    { name: 'cherry', count: 2, price: 3, on: true, day: '2023-12-31', at: '2023-12-31T00:00:00Z' },
    { name: 'apricot', count: 7, on: false, day: '2024-03-15' },
    { name: 'date', count: 10, price: 2 },
    { name: '50% off_sale', count: 1 },
    { count: 0 },
  ];
  t.before(async () => {
    for (const m of seed) {
      const res = await send(url, 'POST', m);
      if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    }
  });

  const ids = async (query: string): Promise<number[]> => {
    const res = await fetch(`${url}?${query}`);
    t.equal(res.status, 200, query);
    return (await res.json() as any).map((m: { id: number }) => m.id);
  };

  t.test('default order is creation order and every member is returned', async (t) => {
    t.same(await ids(''), [1, 2, 3, 4, 5, 6, 7]);
  });

  t.test('the seed paging example: 7 members, pages of 5', async (t) => {
    t.same(await ids('start=0&count=5'), [1, 2, 3, 4, 5]);
    t.same(await ids('start=5&count=5'), [6, 7]);
    t.same(await ids('start=5'), [6, 7], 'start only runs to the end');
    t.same(await ids('count=2'), [1, 2], 'count only starts at the beginning');
    t.same(await ids('start=9'), [], 'past the end is empty');
    t.same(await ids('count=0'), []);
  });

  t.test('ordering applies before slicing', async (t) => {
    t.same(await ids('order_by=-count&count=3'), [2, 5, 4], 'ties broken by id');
    t.same(await ids('order_by=-count,name'), [2, 5, 4, 1, 3, 6, 7]);
    t.same(await ids('order_by=count&start=1&count=2'), [6, 3]);
    t.same(await ids('order_by=name&count=3'), [7, 6, 2], 'absent first ascending, then code-point order');
  });

  t.test('filters: every condition family', async (t) => {
    t.same(await ids('name=apple'), [1]);
    t.same(await ids('name__exact=apple'), [1]);
    t.same(await ids('name__iexact=BANANA'), [2]);
    t.same(await ids('name__contains=an'), [2]);
    t.same(await ids('name__icontains=AN'), [2]);
    t.same(await ids('name__startswith=ap'), [1, 4]);
    t.same(await ids('name__istartswith=b'), [2]);
    t.same(await ids('name__endswith=y'), [3]);
    t.same(await ids('name__iendswith=A'), [2]);
    t.same(await ids('name__contains=%25'), [6], '% is literal');
    t.same(await ids('name__contains=_'), [6], '_ is literal');
    t.same(await ids('count__gt=3'), [2, 4, 5], 'numbers compare as numbers');
    t.same(await ids('count__gte=7&count__lt=10'), [4]);
    t.same(await ids('count__lte=1'), [6, 7]);
    t.same(await ids('count__ne=10'), [1, 3, 4, 6, 7]);
    t.same(await ids('price__ne=2'), [1, 2, 3, 4, 6, 7], 'ne includes absent values');
    t.same(await ids('count__in=1,2,3'), [1, 3, 6]);
    t.same(await ids('count__range=2,7'), [1, 3, 4]);
    t.same(await ids('price__isnull=true'), [4, 6, 7]);
    t.same(await ids('price__isnull=false'), [1, 2, 3, 5]);
    t.same(await ids('price__gt=1'), [1, 3, 5]);
    t.same(await ids('on=true'), [1, 3]);
    t.same(await ids('on=false'), [2, 4]);
    t.same(await ids('day__day=5'), [1, 2]);
    t.same(await ids('day__month=12'), [3]);
    t.same(await ids('day__year=2024'), [1, 2, 4]);
    t.same(await ids('day__lt=2024-02-01'), [1, 3]);
    t.same(await ids('at__day=31'), [3]);
    t.same(await ids('at=2024-02-06T01:30:00%2B02:00'), [2], 'date-times compare as instants');
    t.same(await ids('at__gte=2024-01-01T00:00:00Z'), [1, 2]);
    t.same(await ids('id__in=2,4'), [2, 4]);
    t.same(await ids('id__gt=5'), [6, 7]);
    t.same(await ids('name__startswith=a&count__gt=3'), [4], 'filters apply together');
  });

  t.test('X-Total-Count counts matches; Link pages through them', async (t) => {
    const all = await fetch(url);
    t.equal(all.headers.get('x-total-count'), '7');
    t.equal(all.headers.get('link'), null, 'no Link when not paged');
    const filtered = await fetch(`${url}?count__gt=3`);
    t.equal(filtered.headers.get('x-total-count'), '3');
    const page = await fetch(`${url}?name__startswith=a&start=1&count=1`);
    t.equal(page.headers.get('x-total-count'), '2');
    const link = page.headers.get('link')!;
    t.match(link, /<http:\/\/127\.0\.0\.1:\d+\/resources\/items\?name__startswith=a&start=0&count=1>; rel="first"/);
    t.match(link, /rel="prev"/);
    t.notMatch(link, /rel="next"/, 'no next page after the last');
    const first = (await fetch(`${url}?start=0&count=5`)).headers.get('link')!;
    t.match(first, /start=5&count=5>; rel="next"/);
    t.notMatch(first, /rel="prev"/);
    // prev is the members right before the page, none of the page's own.
    const prevOf = async (q: string) => /<[^>]*\?([^>]*)>; rel="prev"/.exec((await fetch(`${url}?${q}`)).headers.get('link')!)?.[1];
    t.equal(await prevOf('start=4&count=2'), 'start=2&count=2');
    t.equal(await prevOf('start=3&count=5'), 'start=0&count=3', 'a count past the start: the first `start` members');
    t.equal(await prevOf('start=3'), 'start=0&count=3', 'no count: the first `start` members, not the whole list');
    // Pages of no members have no neighbours: a client following `next` would get the same URL forever.
    for (const q of ['count=0', 'start=2&count=0']) {
      const none = (await fetch(`${url}?${q}`)).headers.get('link')!;
      t.match(none, /rel="first"/, q);
      t.notMatch(none, /rel="(next|prev)"/, q);
    }
    const empty = await fetch(server.at('/resources/empty'));
    t.equal(empty.headers.get('x-total-count'), '0');
    t.same(await empty.json() as any, []);
  });

  t.test('a bad query is 400 naming the parameter', async (t) => {
    const cases: [string, string][] = [
      ['nope=1', 'nope'],
      ['name__like=a', 'name__like'],
      ['on__gt=true', 'on__gt'],
      ['name__year=2024', 'name__year'],
      ['count__gt=many', 'count__gt'],
      ['count=1.5', 'count'],
      ['start=-1', 'start'],
      ['count=-1', 'count'],
      ['start=x', 'start'],
      ['order_by=nope', 'order_by'],
      ['order_by=name,', 'order_by'],
      ['day=2024-13-01', 'day'],
      ['at=yesterday', 'at'],
      ['on=yes', 'on'],
      ['count__range=1', 'count__range'],
      ['price__isnull=maybe', 'price__isnull'],
      ['day__month=13', 'day__month'],
      ['format_as=xml', 'format_as'],
    ];
    for (const [query, parameter] of cases) {
      const res = await fetch(`${url}?${query}`);
      t.equal(res.status, 400, query);
      const problem = await res.json() as any;
      t.equal(problem.code, 'invalid-query', query);
      t.ok(problem.errors.some((e: { parameter: string }) => e.parameter === parameter), `${query} names ${parameter}`);
    }
    const many = await (await fetch(`${url}?nope=1&count=x`)).json() as any;
    t.equal(many.errors.length, 2, 'every bad parameter is named');
  });

  t.test('a model field named like a reserved parameter is filtered with __exact', async (t) => {
    // `count` is both a field of items and the paging parameter.
    t.same(await ids('count__exact=10'), [2, 5]);
    t.same(await ids('count=1'), [1], 'plain count pages');
  });

  t.test('hostile query strings are data', async (t) => {
    t.same(await ids(`name=${encodeURIComponent("x' OR '1'='1")}`), []);
    t.same(await ids(`name__contains=${encodeURIComponent('"; DROP TABLE items; --')}`), []);
    t.same(await ids(''), [1, 2, 3, 4, 5, 6, 7], 'table intact');
    const res = await fetch(`${url}?${encodeURIComponent('na"me')}=1`);
    t.equal(res.status, 400);
  });
});
