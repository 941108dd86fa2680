// zput of a response header value the server cannot send (README "Context keys": a value of the
// wrong kind throws a TypeError that names what is wrong). Header values are Latin-1 text: a value
// with '€' or '😀' in it was refused with "a header value cannot contain control characters such
// as CR or LF", which it does not, sending the handler's author after the wrong cause.

import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { people: PEOPLE },
  resources: {
    'people.ts': `
      export function onList() {
        const out: string[] = [];
        for (const v of ['price in €', 'a\\r\\nb', 'caf\\u00e9']) {
          try { zput('/request/headers/out/x-v', v); out.push('ok'); } catch (e) { out.push(String((e as Error).message)); }
        }
        zdelete('/request/headers/out/x-v');
        echo(JSON.stringify(out));
      }`,
  },
});
t.teardown(() => s.close());

t.test('a character past Latin-1 is named as such, not as a control character', async (t) => {
  const [euro, crlf, latin1] = (await (await fetch(s.at('/resources/people'))).json()) as string[];
  t.match(euro, /^zput\("\/request\/headers\/out\/x-v"\): /);
  t.notMatch(euro, /control characters/, 'no control character is in the value');
  t.match(euro, /Latin-1|U\+20AC/);
  t.match(crlf, /control character/, 'CR and LF are still named as such');
  t.equal(latin1, 'ok', 'Latin-1 text is accepted as before');
});
