// Attack: file names that forge `svc check` output. A tenant's model file named
// `x\nacme: models/ok.json: fine.json` printed a line of its own that passed for another tenant's,
// and one with an escape sequence (`\e[31m`) wrote to the operator's terminal. Each problem and
// warning is one line now, its control characters written as JSON escapes.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../helpers/process.ts';

t.test('a model file name with a line break or an escape sequence is one line of svc check', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'svc-check-names-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const app = join(root, 'evil');
  mkdirSync(join(app, 'models'), { recursive: true });
  mkdirSync(join(app, 'resources'));
  writeFileSync(join(app, 'models', 'x\nacme: models∕ok.json: fine.json'), '{"fields":{}}');
  writeFileSync(join(app, 'models', 'a\u001b[31mred.json'), '{"fields":{}}');
  // A tenant directory name is printed too.
  mkdirSync(join(root, 'Bad\nacme: ok'));
  const { code, out } = await runSvc(['check', '--tenants', root]);
  t.equal(code, 1, out);
  // In the order of the names' code points: 'a' before 'x'.
  const lines = out.trimEnd().split('\n');
  t.same(lines, [
    'evil: models/a\\u001b[31mred.json: the name "a\\u001b[31mred" must match [A-Za-z][A-Za-z0-9_-]* and not be "types"',
    'evil: models/x\\nacme: models∕ok.json: fine.json: the name "x\\nacme: models∕ok.json: fine" must match [A-Za-z][A-Za-z0-9_-]* and not be "types"',
    "Bad\\nacme: ok: warning: not served: tenant names are 1 to 63 lower-case letters, digits and '-' (not first), as a Host's first label",
    'svc check: 2 problems',
  ]);
  t.notMatch(out, '\u001b');
});
