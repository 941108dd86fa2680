// Attack: a handler over maxHandlerBytes whose build also met a syntax error in another file. The
// bound's error is shown to clients in any mode (it holds no source), but the detail was esbuild's
// first error, sorted by file: `Expected ";" but found "oops_secret_token"`, source text of the
// handler, to any client outside development mode. README "Errors": the compile error's detail is
// esbuild's message in development mode only; over the bound, the detail names the bound.

import t from 'tap';
import { body, sandboxServer } from './harness.ts';

const M = { fields: { name: { type: 'string' } } };

t.test('over the bound, production shows the bound, never another error of the build', async (t) => {
  const s = await sandboxServer({
    models: { notes: M },
    resources: { 'notes.ts': "import './lib/bad.ts';\nimport './lib/m1.ts';\necho('x');\n" },
    files: {
      'resources/lib/bad.ts': "const password = 'hunter2' oops_secret_token;\n",
      // The large file is reached later than bad.ts is parsed.
      'resources/lib/m1.ts': "import './m2.ts';\n",
      'resources/lib/m2.ts': "import './big.ts';\n",
      'resources/lib/big.ts': `export const s = "${'x'.repeat(300_000)}";\n`,
    },
  });
  t.teardown(() => s.close());
  const res = await fetch(s.at('/resources/notes'));
  t.equal(res.status, 500);
  const problem = await body(res);
  t.match(problem, { code: 'handler-compile-error', detail: /over 262144 bytes \(the server's maxHandlerBytes limit\)/ });
  t.notMatch(problem.detail, /oops_secret_token|hunter2|Expected/);
});
