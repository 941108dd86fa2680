// A handler's fetches look their host names up one at a time for their app (sandbox/ops/fetch.ts
// MAX_LOOKUPS): a name whose DNS server never answers holds one of libuv's threads until the
// resolver gives up, whatever the fetch's time, and an app must not take more than one so. The
// resolver is a stand-in here (no DNS server that never answers can run on these machines).

import t from 'tap';
import { setHostLookup } from '../../src/sandbox/ops/fetch.ts';
import { body, sandboxServer } from './harness.ts';

const asked: string[] = [];
const release: (() => void)[] = [];
const before = setHostLookup((host) => {
  asked.push(host);
  return new Promise((_, reject) => release.push(() => reject(new Error('ENOTFOUND'))));
});
t.teardown(() => {
  for (const r of release) r();
  setHostLookup(before);
});

const s = await sandboxServer({
  models: { calls: { fields: { name: { type: 'string' } } } },
  resources: {
    'calls.ts': `export async function onList() {
      const settled = await Promise.allSettled(['http://slow-1.test', 'http://slow-2.test', 'http://slow-3.test'].map((u) => fetch(u)));
      zput('/request/json/output', settled.map((r) => r.status === 'rejected' ? String(r.reason.message) : 'fulfilled'));
      render();
    }`,
  },
  files: { 'svc.json': JSON.stringify({ fetch: { allow: ['http://slow-1.test', 'http://slow-2.test', 'http://slow-3.test'] }, limits: { fetchTimeoutMs: 300 } }) },
});
t.teardown(() => s.close());

t.test('three fetches of names that never resolve: one lookup, and each fetch gives up at its time', async (t) => {
  const out = (await body(await fetch(s.at('/resources/calls')))) as string[];
  t.same(out, ['slow-1', 'slow-2', 'slow-3'].map((h) => `fetch(): http://${h}.test did not answer within 300 ms`));
  // Runtime calls are synchronous: each fetch began when the one before had given up, and the
  // first lookup, which never ends, still held the app's place.
  t.same(asked, ['slow-1.test'], 'the second and third waited for the first lookup');
});
