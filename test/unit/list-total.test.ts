// The default handler's X-Total-Count: a short page gives the total itself, with no count query;
// a full page, an empty page past the first, and a streamed page are counted.

import t from 'tap';
import { runDefault } from '../../src/handler/default-handler.ts';
import { atom } from '../../src/representation/atom.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { makeModel } from '../fixtures/models.ts';
import { stubExchange, stubSink } from '../helpers/stub-exchange.ts';

const model = makeModel('items', { name: 'string' });
const store = await openSqliteStore('sqlite::memory:', '');
t.teardown(() => store.close());
for (let i = 0; i < 7; i++) await store.insert(model, { name: i < 5 ? `a${i}` : `b${i}` }, new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString());

/** The store's methods, each bound to it (its fields are private: a proxy's `this` would not do). */
function bound(s: Store): Store {
  const names = ['ensure', 'list', 'listJson', 'count', 'get', 'insert', 'replace', 'delete', 'ping', 'close'] as const;
  // pageJson and page are left out: these lists read the page, then count.
  return Object.fromEntries(names.map((n) => [n, (s[n] as (...a: unknown[]) => unknown).bind(s)])) as unknown as Store;
}

/** The list `query` answers: its X-Total-Count, its ids, and how many count queries it made. */
async function list(query: string, collect = false): Promise<{ total: string | undefined; ids: number[]; counts: number }> {
  let counts = 0;
  const counting: Store = {
    ...bound(store),
    count: (...args) => (counts++, store.count(...args)),
  };
  const ex = stubExchange({ collection: 'items', handler: '', store: counting });
  const params = new URLSearchParams(query);
  Object.assign(ex, { model, params: new Map(params), query: [...params] });
  const result = await runDefault(ex, { collect });
  const ids = collect ? result.collection!.map((m) => m.id) : [];
  return { total: ex.res.headers.get('x-total-count'), ids, counts };
}

t.test('a page shorter than its count is its own total', async (t) => {
  t.same(await list('count=10'), { total: '7', ids: [], counts: 0 });
  t.same(await list('start=5&count=10'), { total: '7', ids: [], counts: 0 }, 'the last page');
  t.same(await list('name__startswith=b&count=20'), { total: '2', ids: [], counts: 0 }, 'a filtered page');
  t.same(await list('name__startswith=z&count=20'), { total: '0', ids: [], counts: 0 }, 'no match at all');
  t.same(await list('start=5&count=10', true), { total: '7', ids: [6, 7], counts: 0 }, 'members collected for a handler');
});

t.test('a page that may not be the last is counted', async (t) => {
  t.same(await list('count=7'), { total: '7', ids: [], counts: 1 }, 'a full page');
  t.same(await list('start=1&count=2&name__startswith=a'), { total: '5', ids: [], counts: 1 }, 'a full filtered page');
  t.same(await list('start=9&count=5'), { total: '7', ids: [], counts: 1 }, 'an empty page past the end says only total <= start');
  t.same(await list('count=0'), { total: '7', ids: [], counts: 1 });
  t.same(await list(''), { total: '7', ids: [], counts: 1 }, 'an unpaged list streams, counted first');
  t.same(await list('count=1000'), { total: '7', ids: [], counts: 1 }, 'a large page streams, counted first');
});

t.test('a first page is read with its total in one read: as texts (pageJson) for JSON and Atom, as members (page) for a handler; no list, no count', async (t) => {
  const calls: string[] = [];
  const spying: Store = {
    ...bound(store),
    pageJson: (...args) => (calls.push('pageJson'), store.pageJson!(...args)),
    page: (...args) => (calls.push('page'), store.page!(...args)),
    list: (...args) => (calls.push('list'), store.list(...args)),
    count: (...args) => (calls.push('count'), store.count(...args)),
  };
  const read = async (query: string, representation: 'json' | 'atom', collect: boolean) => {
    calls.length = 0;
    const ex = stubExchange({ collection: 'items', handler: '', store: spying });
    const params = new URLSearchParams(query);
    Object.assign(ex, { model, params: new Map(params), query: [...params], representation: representation === 'atom' ? atom : ex.representation });
    const result = await runDefault(ex, { collect });
    return { total: ex.res.headers.get('x-total-count'), ids: result.collection?.map((m) => m.id), calls: [...calls] };
  };
  t.same(await read('count=3', 'atom', false), { total: '7', ids: undefined, calls: ['pageJson'] }, 'Atom, newest first: the page, its total and the feed\'s updated');
  // In another order the feed's updated (the newest match) is one more read of one member.
  t.same(await read('count=3&name__startswith=a&order_by=name', 'atom', false), { total: '5', ids: undefined, calls: ['pageJson', 'list'] }, 'Atom, filtered, by name');
  // From a store that keeps no texts (MongoDB), Atom renders members: texts would be made to be read back.
  delete spying.pageJson;
  t.same(await read('count=3', 'atom', false), { total: '7', ids: undefined, calls: ['page'] }, 'Atom from a store without pageJson: members');
  spying.pageJson = (...args) => (calls.push('pageJson'), store.pageJson!(...args));
  t.same(await read('count=3&order_by=name', 'json', true), { total: '7', ids: [1, 2, 3], calls: ['page'] }, 'collected for a handler');
  t.same(await read('count=3&order_by=name', 'json', false), { total: '7', ids: undefined, calls: ['pageJson'] }, 'JSON: the page as texts');
  // The store reads the kept count with the page's rows (each row's last column): an empty page has none, and reads itself again with the count.
  t.same(await read('start=9&count=3', 'json', false), { total: '7', ids: undefined, calls: ['pageJson'] }, 'JSON: an empty page past the end');
  t.same(await read('start=6&count=3', 'json', false), { total: '7', ids: undefined, calls: ['pageJson'] }, 'JSON: the last page, of one member');
  // The page's members are those list gives, in its order (the newest first for Atom).
  const members = [];
  for await (const m of store.list(model, { filters: [], order: [{ field: 'updated', desc: true }], start: 0, count: 3 })) members.push(m);
  const ex = stubExchange({ collection: 'items', handler: '', store: spying });
  const params = new URLSearchParams('count=3&order_by=-updated');
  Object.assign(ex, { model, params: new Map(params), query: [...params] });
  t.same((await runDefault(ex, { collect: true })).collection, members);
});

// HEAD is GET without a body (RFC 9110 §9.3.2): its status and headers are GET's, streamed
// (chunked) when GET's would be, and then nothing more of the list is read. It read and rendered
// the whole list to discard it: as much of the store's time as the GET, for nothing.
t.test('HEAD of a streamed list reads no further than its head needs', async (t) => {
  const big = makeModel('bigs', { name: 'string' });
  const s = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => s.close());
  for (let i = 0; i < 2000; i++) await s.insert(big, { name: `${i}`.padStart(100, 'x') }, new Date(Date.UTC(2025, 0, 1, 0, 0, 0, i)).toISOString());
  const run = async (method: 'GET' | 'HEAD', collect = false) => {
    let read = 0;
    const counting: Store = {
      ...bound(s),
      listJson: (...args) => (async function* () {
        for await (const text of s.listJson(...args)) {
          read++;
          yield text;
        }
      })(),
      list: (...args) => (async function* () {
        for await (const m of s.list(...args)) {
          read++;
          yield m;
        }
      })(),
    };
    const ex = stubExchange({ collection: 'bigs', handler: '', store: counting });
    Object.assign(ex, { model: big, method, res: stubSink(method) });
    const result = await runDefault(ex, { collect });
    return { read, total: ex.res.headers.get('x-total-count'), length: ex.res.headers.get('content-length'), collected: result.collection?.length };
  };
  const get = await run('GET');
  t.same(get, { read: 2000, total: '2000', length: null, collected: undefined }, 'GET streams every member (no Content-Length)');
  const head = await run('HEAD');
  t.equal(head.total, '2000');
  t.notOk(head.length, 'HEAD: the same head, streamed (no Content-Length)');
  t.ok(head.read < 1000, `HEAD read ${head.read} of 2,000 members`);
  t.equal((await run('HEAD', true)).read, 2000, 'a handler that delegated and reads the collection gets all of it');
});
