// A handler's svc.collection().list() and count() take the same text conditions as a URL, bounded
// alike (model/query.ts MAX_TEXT_CONDITION_CHARS): a longer one throws an Error saying so, on
// either store. It had no bound: 9,000 dots made a 18,000-byte $regex pattern, which MongoDB
// refuses (a failed call, "the store failed") where SQLite answered.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { people: PEOPLE },
  resources: {
    'people.ts': `
      export function onList() {
        const n = Number(zget('/request/params/n'));
        const out = {};
        for (const method of ['list', 'count']) {
          try {
            const r = svc.collection('people')[method]({ name__contains: '.'.repeat(n) });
            out[method] = Array.isArray(r) ? r.length : r;
          } catch (e) {
            out[method] = String(e.message);
          }
        }
        zput('/request/json/output', out);
        render();
      }`,
  },
});
t.teardown(() => s.close());

t.test('a text condition of 4,000 characters is answered; one of 9,000 throws, naming the bound', async (t) => {
  t.same(await body(await fetch(s.at('/resources/people?n=4000'))), { list: 0, count: 0 });
  const refused = (await body(await fetch(s.at('/resources/people?n=9000')))) as Record<string, string>;
  for (const method of ['list', 'count']) {
    t.match(refused[method], /^svc\.collection\("people"\)\.(list|count)\(\): .*name__contains is a text of at most 4000 characters for "contains"$/, `${method}()`);
  }
});
