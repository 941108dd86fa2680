// Attack: members of 1 MB, listed whole through an isolate. A count bound alone
// let `svc.delegate()` gather every member for `/event/resource/collection`, and a model-API
// `list()` build the whole result, on the host: gigabytes for 1,100 members. Both are bounded in
// bytes (maxResultBytes) while the store is read; the response of a delegate still has every member.

import t from 'tap';
import type { Member, Model, Query } from '../../src/model/types.ts';
import { takePeakResultBytes } from '../../src/handler/members.ts';
import { body, eventually, sandboxServer } from './harness.ts';

const MEMBER_CHARS = 1_000_000;
const MEMBERS = 12;
/** The bound of this test: the members are six times over it. */
const BOUND = 2 * 1024 * 1024;
/** The host may hold the bound plus the member being measured. */
const MARGIN = MEMBER_CHARS + 1024;

const BIG = `export function onList() {
  svc.delegate();
  try {
    const listed = zget('/event/resource/collection');
    console.log('collection of ' + listed.length);
  } catch (e) {
    console.log('collection refused: ' + e.message);
  }
}
`;

const PROBE = `export function onList() {
  const big = svc.collection('big');
  const page = big.list({ start: 3, count: 1 });
  let message;
  try {
    message = 'listed ' + big.list().length;
  } catch (e) {
    message = e.message;
  }
  zput('/request/json/output', { message, page: page.map((m) => [m.id, m.txt.length]) });
  render();
}
`;

t.test('members of 1 MB: the host gathers at most maxResultBytes of them for a handler', async (t) => {
  const s = await sandboxServer(
    {
      models: { big: { fields: { txt: { type: 'string', max_length: MEMBER_CHARS } } }, probe: { fields: { x: { type: 'string' } } } },
      resources: { 'big.js': BIG, 'probe.js': PROBE },
    },
    { limits: { maxResultBytes: BOUND, cpuLimitMs: 5000, memoryLimitMiB: 128 } },
  );
  t.teardown(() => s.close());
  const app = (await s.server.apps.resolve('localhost'))!;
  const model = app.models.get('big')!;
  await app.store.ensure(model);
  for (let i = 0; i < MEMBERS; i++) {
    await app.store.insert(model, { txt: String.fromCharCode(97 + i).repeat(MEMBER_CHARS) }, new Date(Date.UTC(2024, 0, 1) + i).toISOString());
  }
  // Counts what the handlers' requests read from the store.
  const store = app.store as { list(model: Model, query: Query): AsyncIterable<Member> };
  const list = store.list.bind(store);
  let pulled = 0;
  store.list = async function* (m, q) {
    for await (const member of list(m, q)) {
      pulled += String(member.txt ?? '').length;
      yield member;
    }
  };
  takePeakResultBytes();

  t.test('svc.delegate() of the whole list, four at once', async (t) => {
    // Read all four at once: a response nobody reads is held back, then cut (the one-write stall rule).
    const responses = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const res = await fetch(s.at('/resources/big'));
        return { res, listed: (await res.json()) as { id: number; txt: string }[] };
      }),
    );
    for (const { res, listed } of responses) {
      t.equal(res.status, 200);
      t.equal(res.headers.get('x-total-count'), String(MEMBERS));
      t.equal(listed.length, MEMBERS, 'the response has every member');
      t.ok(listed.every((m, i) => m.txt === String.fromCharCode(97 + i).repeat(MEMBER_CHARS)), 'each whole and in order');
    }
    const peak = takePeakResultBytes();
    t.ok(peak <= BOUND + MARGIN, `the host held at most ${peak} bytes of members for one handler (bound ${BOUND})`);
    t.ok(await eventually(() => s.log.filter((l) => /collection refused: .*over the 2097152 bytes .*maxResultBytes.*count/.test(l)).length === 4), 'the handler is told why /event/resource/collection cannot be read');
    t.notOk(s.log.some((l) => l.includes('collection of ')), 'it is not given a truncated collection');
  });

  t.test('svc.delegate() of a page under the bound still gives the handler its members', async (t) => {
    const res = await fetch(s.at('/resources/big?count=1'));
    t.equal(res.status, 200);
    t.equal(((await res.json()) as unknown[]).length, 1);
    t.ok(await eventually(() => s.log.some((l) => l.endsWith('collection of 1'))), s.log.slice(-3).join('\n'));
  });

  t.test('a model-API list() over the bound fails, having read little of the store', async (t) => {
    takePeakResultBytes();
    pulled = 0;
    const res = await fetch(s.at('/resources/probe'));
    t.equal(res.status, 200);
    const out = await body(res);
    t.match(out.message, /^svc\.collection\("big"\)\.list\(\): the members found are over the 2097152 bytes one call may return \(maxResultBytes\); ask for fewer with count, and page with start$/);
    t.same(out.page, [[4, MEMBER_CHARS]], 'a page under the bound is returned');
    const peak = takePeakResultBytes();
    t.ok(peak <= BOUND + MARGIN, `the host held at most ${peak} bytes for the call (bound ${BOUND})`);
    // The page read one member; the whole list stopped one member past the bound.
    t.ok(pulled <= BOUND + 2 * MEMBER_CHARS, `${pulled} characters were read from the store, of ${MEMBERS * MEMBER_CHARS}`);
  });
});

t.test('an app may lower the bound in its svc.json, never raise it', async (t) => {
  // Three members of about 420 bytes of JSON each: about 1,260 bytes in all.
  for (const [app, server, expected] of [[1000, 2000, 500], [100_000, 1000, 500], [100_000, 2000, 200]] as const) {
    const s = await sandboxServer(
      {
        models: { big: { fields: { txt: { type: 'string' } } }, probe: { fields: { x: { type: 'string' } } } },
        resources: { 'probe.js': `export function onList() { zput('/request/json/output', svc.collection('big').list().length); render(); }` },
        files: { 'svc.json': JSON.stringify({ limits: { maxResultBytes: app } }) },
      },
      { limits: { maxResultBytes: server } },
    );
    const a = (await s.server.apps.resolve('localhost'))!;
    const model = a.models.get('big')!;
    await a.store.ensure(model);
    for (let i = 0; i < 3; i++) await a.store.insert(model, { txt: 'x'.repeat(360) }, new Date(Date.UTC(2024, 0, 1) + i).toISOString());
    const res = await fetch(s.at('/resources/probe'));
    t.equal(res.status, expected, `svc.json ${app} bytes, server ${server}: ${expected === 500 ? 'list() throws' : 'list() returns'}`);
    await res.arrayBuffer();
    await s.close();
  }
});
