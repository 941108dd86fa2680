// Attack: MongoDB operator injection. Query strings, JSON and Atom bodies that try to become an operator
// or a field path (`name[$ne]=x`, `{"$where": …}`, `{"a.b": 1}`, `name__gt[$gt]`) are each a 400, or
// are taken as literal values. On SQLite, on the MongoDB store through the wire test server, and on a
// MongoDB server when one is at hand (test/helpers/mongodb.ts).

import t, { type Test } from 'tap';
import { makeApp, send, startServer, type TestServer } from '../helpers/server.ts';
import { onMongo } from '../helpers/mongodb.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';

const MODEL = { fields: { name: { type: 'string' }, n: { type: 'integer' }, note: { type: 'text' } } };

async function server(t: Test, store: string): Promise<TestServer> {
  const app = makeApp({ models: { notes: MODEL }, resources: { 'notes.ts': 'svc.delegate();\n' } });
  const s = await startServer({ appDir: app.dir, store });
  t.teardown(async () => {
    await s.close();
    app.cleanup();
  });
  return s;
}

const ids = async (r: Response): Promise<number[]> => ((await r.json()) as { id: number }[]).map((m) => m.id);

function attacks(t: Test, store: string): void {
  t.test(store.replace(/\/\/[^@/]*@/, '//…@'), async (t) => {
    const s = await server(t, store);
    // Members whose values look like operators, paths and patterns.
    const values = ['$ne', 'a.b', '.*', '{"$gt":""}', 'x'];
    for (const [i, name] of values.entries()) {
      t.equal((await send(s.at('/resources/notes'), 'POST', { name, n: i })).status, 201, `create ${name}`);
    }

    for (const qs of [
      'name[$ne]=x',
      'name[%24ne]=x',
      'name__gt[$gt]=',
      'name__$ne=x',
      '$where=sleep(1000)',
      'a.b=1',
      'name.$ne=x',
      '__proto__=x',
      'name__regex=.*',
      'order_by=$natural',
      'order_by=-a.b',
      'n={"$gt":-1}',
      'n__in=0,{"$gt":0}',
      'n__gt[$gt]=0',
    ]) {
      const r = await fetch(s.at(`/resources/notes?${qs}`));
      const problem = (await r.json()) as { code?: string };
      t.equal(r.status, 400, `?${qs}: 400`);
      t.equal(problem.code, 'invalid-query', `?${qs}: invalid-query`);
    }

    const literal: [string, number[]][] = [
      ['name=%24ne', [1]],
      ['name=a.b', [2]],
      ['name=.*', [3]],
      ['name={"$gt":""}', [4]],
      ['name__ne=%24ne', [2, 3, 4, 5]],
      ['name__in=$ne,.*', [1, 3]],
      ['name__contains=.', [2, 3]],
      ['name__contains=*', [3]],
      ['name__icontains=$', [1, 4]],
      ['name__startswith=.', [3]],
      ['name__endswith=}', [4]],
      ['name__iexact=X', [5]],
      ['name__range=$,/', [1, 3]],
    ];
    for (const [qs, expected] of literal) {
      const r = await fetch(s.at(`/resources/notes?${qs}`));
      t.equal(r.status, 200, `?${qs}: 200`);
      t.same(await ids(r), expected, `?${qs}: matched as literal text`);
    }

    for (const body of [
      '{"$where": "sleep(1000)"}',
      '{"a.b": 1}',
      '{"name.$ne": 1}',
      '{"$set": {"n": 1}}',
      '{"name": {"$ne": null}}',
      '{"name": {"$gt": ""}}',
      '{"n": {"$inc": 1}}',
      '{"name": ["$gt"]}',
      '{"__proto__": {"name": "x"}}',
    ]) {
      const created = await send(s.at('/resources/notes'), 'POST', body);
      t.equal(created.status, 400, `create ${body}: 400`);
      const updated = await send(s.at('/resources/notes/5'), 'PUT', body);
      t.equal(updated.status, 400, `update ${body}: 400`);
    }
    const atom = (dl: string) =>
      `<entry xmlns="http://www.w3.org/2005/Atom"><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><dl>${dl}</dl></div></content></entry>`;
    const post = (dl: string) => send(s.at('/resources/notes'), 'POST', atom(dl), { 'content-type': 'application/atom+xml' });
    t.equal((await post('<dt>$where</dt><dd>1</dd>')).status, 400, 'Atom: a $where field');
    t.equal((await post('<dt>a.b</dt><dd>1</dd>')).status, 400, 'Atom: a dotted field');
    const made = await post('<dt>name</dt><dd>$where</dd>');
    t.equal(made.status, 201, 'Atom: an operator-like value is a value');
    const id = made.headers.get('location')!.split('/').pop();
    t.match(await (await fetch(s.at(`/resources/notes/${id}`))).json(), { id: Number(id), name: '$where' }, 'stored as text');

    const all = await fetch(s.at('/resources/notes'));
    t.equal(all.headers.get('x-total-count'), '6', 'nothing else was written, nothing removed');
  });
}

attacks(t, 'sqlite::memory:');

t.test('on the wire test server', async (t) => {
  const wire = await startMongoWireServer();
  t.teardown(() => wire.stop());
  attacks(t, `${wire.uri}attack`);
});

t.test('on MongoDB', (t) =>
  onMongo(t, (uri) => {
    // A database of its own for this run.
    attacks(t, uri.replace(/(mongodb(?:\+srv)?:\/\/[^/?]*)\/?[^?]*/, `$1/attack${process.pid}`));
  }),
);
