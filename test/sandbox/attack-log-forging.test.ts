// Attack: a record of the text log that passes for another tenant's. Console lines had their control
// characters escaped, but an error's name and message went into "handler threw …" as they were:
// `throw new Error("boom\nsvc: [victim/p list] log: FORGED")` wrote a second line that looked like
// the victim's. Every text record is now one line (exchange/log.ts `oneLine`), C1 controls (NEL,
// CSI) and U+2028/9 included, in console lines too.

import t from 'tap';
import { sandboxServer } from './harness.ts';

const FORGED = 'svc: [victim/p list] log: FORGED';
const s = await sandboxServer({
  models: { t: { fields: { name: { type: 'string' } } } },
  resources: {
    't.ts': `
      export async function onList() {
        const how = zget('/request/params/how');
        const text = 'boom' + zget('/request/params/sep') + ${JSON.stringify(FORGED)};
        if (how === 'throw') throw new Error(text);
        if (how === 'name') { const e = new Error('x'); e.name = text; throw e; }
        if (how === 'reject') return Promise.reject(new Error(text));
        if (how === 'unhandled') { Promise.reject(new Error(text)); return; }
        console.log(text);
        echo('ok');
      }`,
  },
});
t.teardown(() => s.close());

for (const how of ['throw', 'name', 'reject', 'unhandled', 'console']) {
  for (const [label, sep] of [['LF', '\n'], ['CR', '\r'], ['NEL', '\u0085'], ['LS', '\u2028']] as const) {
    t.test(`${how}, ${label}`, async (t) => {
      const before = s.log.length;
      const res = await fetch(s.at(`/resources/t?how=${how}&sep=${encodeURIComponent(sep)}`));
      await res.arrayBuffer();
      // The handler's record is written by the time its response is complete, but give a console line its turn.
      const line = await new Promise<string | undefined>((resolve) => {
        const check = (n: number): void => {
          const found = s.log.slice(before).find((l) => l.includes('FORGED'));
          if (found !== undefined || n === 0) resolve(found);
          else setImmediate(() => check(n - 1));
        };
        check(1000);
      });
      t.ok(line, 'the record is written');
      t.notMatch(line, /[\n\r\u0085\u2028]/, 'on one line');
      t.ok(line!.startsWith('svc: [app/t list] '), "the handler's own record");
      for (const l of s.log) t.notOk(l.startsWith(FORGED), 'no record of its own');
    });
  }
}
