// Attack: a handler whose template literal holds, line after line, the first line of esbuild's
// `__require` helper (which the compiler replaces with `undefined`: a handler has no require). The
// replacement was looked for in the whole bundle: each such line was searched to the end of it
// for the helper's last line, 100 ms of the server's event loop for 250 KB of them per handler
// version (5 ms for as much other text), and a lookalike followed by `});` was replaced, changing
// the handler's own text. Only esbuild's helpers, before the first module's code, are looked at now.

import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const LOOKALIKE = 'var __require = /* @__PURE__ */ ((x) => x\n});\n';
const MANY = '\nvar __require = /* @__PURE__ */ ((x) =>'.repeat(6000);

const s = await sandboxServer({
  models: { doc: PEOPLE, many: PEOPLE, probe: PEOPLE },
  resources: {
    'doc.ts': `const doc = \`\n${LOOKALIKE}\`;\nexport function onList() { echo(doc); }\n`,
    'many.ts': `const doc = \`${MANY}\`;\nexport function onList() { echo(String(doc.length)); }\n`,
    // A value reference to require (not only typeof) makes esbuild emit the helper.
    'probe.ts': 'export function onList() { const r: unknown = require; echo(typeof r); }\n',
  },
});
t.teardown(() => s.close());

t.test("a handler's text that looks like esbuild's require helper stays as written", async (t) => {
  t.equal(await (await fetch(s.at('/resources/doc'))).text(), `\n${LOOKALIKE}`);
  t.equal(await (await fetch(s.at('/resources/many'))).text(), String(MANY.length));
});

t.test('the helper itself is still taken out: a handler has no require', async (t) => {
  t.equal(await (await fetch(s.at('/resources/probe'))).text(), 'undefined');
});
