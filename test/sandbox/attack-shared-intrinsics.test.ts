// Attack: state kept across requests in what the lockdown missed, and memory the isolate's limit
// does not count.
// - Every Error's own `stack` is an accessor whose getter and setter V8 shares between all errors;
//   no property walk of globalThis reaches them, so they were not frozen: a handler hung the
//   Authorization header of one request on the getter and read it in the next.
// - The segments of Intl.Segmenter hold a copy of their text in ICU's memory, outside the V8 heap:
//   one handler's requests held a gigabyte in the process, past the isolate's 64 MiB, until
//   --max-rss stopped other tenants' handlers. It (and Intl.v8BreakIterator) is not available.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { probe: PEOPLE },
  resources: {
    'probe.ts': `
      export function onList() {
        const d = Object.getOwnPropertyDescriptor(new Error('x'), 'stack');
        const attempts: Record<string, string> = {};
        for (const [name, f] of Object.entries({ get: d?.get, set: d?.set })) {
          if (typeof f !== 'function') { attempts[name] = 'none'; continue; }
          const before = (f as any).kept;
          try { (f as any).kept = zget('/request/headers/in/authorization'); attempts[name] = 'written' + (before === undefined ? '' : ', had ' + before); }
          catch (e) { attempts[name] = (e as Error).name + (before === undefined ? '' : ', had ' + before); }
          attempts[name + 'Frozen'] = String(Object.isFrozen(f));
        }
        const intl = Intl as any;
        zput('/request/json/output', { attempts, segmenter: typeof intl.Segmenter, breakIterator: typeof intl.v8BreakIterator, stackWorks: typeof new Error('y').stack });
        render();
      }`,
  },
});
t.teardown(() => s.close());

t.test("the errors' stack accessor is frozen: nothing hangs on it from one request to the next", async (t) => {
  for (const secret of ['Bearer alice', 'Bearer bob', 'Bearer carol']) {
    const out = await body(await fetch(s.at('/resources/probe'), { headers: { authorization: secret } }));
    t.same(out.attempts, { get: 'TypeError', getFrozen: 'true', set: 'TypeError', setFrozen: 'true' }, `${secret}: refused, and nothing was there`);
    t.equal(out.stackWorks, 'string', 'errors still have a stack');
  }
});

t.test('Intl.Segmenter and Intl.v8BreakIterator are not available', async (t) => {
  const out = await body(await fetch(s.at('/resources/probe')));
  t.equal(out.segmenter, 'undefined');
  t.equal(out.breakIterator, 'undefined');
});
