// Handlers' host-name lookups hold at most MAX_LOOKUPS of libuv's 4 threads, one per app
// (sandbox/ops/fetch.ts): getaddrinfo cannot be cancelled, so a name whose DNS server never
// answers held a thread for the resolver's timeout after its fetch gave up, and a tenant listing
// such names could take every thread, stalling the server's file reads, the MongoDB driver's
// lookups and every other tenant's fetches. Here the resolver is a stand-in that answers when told.

import t from 'tap';
import { lookupHost, MAX_LOOKUPS, setHostLookup } from '../../src/sandbox/ops/fetch.ts';

/** A resolver whose lookups wait until answered: which names were asked, and a way to answer each. */
function heldResolver() {
  const asked: string[] = [];
  const answers = new Map<string, () => void>();
  const before = setHostLookup((host) => {
    asked.push(host);
    return new Promise((resolve) => answers.set(host, () => resolve([{ address: '192.0.2.1', family: 4 }])));
  });
  return { asked, answer: (host: string) => answers.get(host)!(), restore: () => void setHostLookup(before) };
}

const timedOut = () => new Error('timed out');
const settled = (p: Promise<unknown>) => p.then(() => 'resolved', (e: Error) => e.message);

t.test('one lookup per app at once, MAX_LOOKUPS in the process; a waiting fetch gives up at its time', async (t) => {
  t.equal(MAX_LOOKUPS, 2);
  const dns = heldResolver();
  t.teardown(dns.restore);
  const forever = new AbortController().signal;
  const a1 = lookupHost('a', 'a1.test', forever, timedOut);
  const a2time = new AbortController();
  const a2 = lookupHost('a', 'a2.test', a2time.signal, timedOut);
  const b1 = lookupHost('b', 'b1.test', forever, timedOut);
  const c1 = lookupHost('c', 'c1.test', forever, timedOut);
  t.same(dns.asked, ['a1.test', 'b1.test'], "a's second lookup waits for its first; c waits for a place");
  a2time.abort(); // its fetch's time is up
  t.equal(await settled(a2), 'timed out', 'a waiting lookup gives up at its time, never asked');
  dns.answer('a1.test');
  t.equal(await settled(a1), 'resolved');
  t.same(dns.asked, ['a1.test', 'b1.test', 'c1.test'], "a's place goes to c, who waited longest");
  dns.answer('b1.test');
  dns.answer('c1.test');
  t.same(await Promise.all([settled(b1), settled(c1)]), ['resolved', 'resolved']);
});

t.test('a lookup its fetch gave up on keeps its place until the resolver answers', async (t) => {
  const dns = heldResolver();
  t.teardown(dns.restore);
  const stalled = new AbortController();
  const x = lookupHost('x', 'x1.test', stalled.signal, timedOut);
  const y = lookupHost('y', 'y1.test', new AbortController().signal, timedOut);
  stalled.abort();
  t.equal(await settled(x), 'timed out', 'the fetch gives up');
  const z = lookupHost('z', 'z1.test', new AbortController().signal, timedOut);
  t.same(dns.asked, ['x1.test', 'y1.test'], 'z waits: the thread x1 holds is still busy');
  dns.answer('x1.test');
  await new Promise((resolve) => setImmediate(resolve));
  t.same(dns.asked, ['x1.test', 'y1.test', 'z1.test'], 'z starts once x1 is answered');
  dns.answer('y1.test');
  dns.answer('z1.test');
  t.same(await Promise.all([settled(y), settled(z)]), ['resolved', 'resolved']);
});

t.test('a name looked up is kept a few seconds: fetches request after request take no place', async (t) => {
  const dns = heldResolver();
  t.teardown(dns.restore);
  const forever = new AbortController().signal;
  const first = lookupHost('k', 'kept.test', forever, timedOut);
  dns.answer('kept.test');
  t.same(await first, [{ address: '192.0.2.1', family: 4 }]);
  // Both places held by lookups that do not end: a kept name is answered all the same.
  void lookupHost('h1', 'held-1.test', forever, timedOut).catch(() => {});
  void lookupHost('h2', 'held-2.test', forever, timedOut).catch(() => {});
  t.same(await lookupHost('k', 'kept.test', forever, timedOut), [{ address: '192.0.2.1', family: 4 }], 'answered from what was kept');
  t.same(dns.asked, ['kept.test', 'held-1.test', 'held-2.test'], 'kept.test was asked once');
  dns.answer('held-1.test');
  dns.answer('held-2.test');
  // Another app's lookup of the same name is its own: what one app fetched lately does not show in another's speed.
  const other = lookupHost('other', 'kept.test', forever, timedOut);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(dns.asked, ['kept.test', 'held-1.test', 'held-2.test', 'kept.test'], "another app's lookup asks again");
  dns.answer('kept.test');
  await other;
});
