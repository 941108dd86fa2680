// Attack: a handler file (or the resources directory, or an import) that is a symlink to a file
// outside the app, so that the sandbox runs it, or shows its text through compile errors.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Compiler } from '../../src/sandbox/compile.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-symlink-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const outside = join(root, 'outside');
mkdirSync(join(outside, 'lib'), { recursive: true });
writeFileSync(join(outside, 'secret.ts'), "zput('/request/json/output', { leaked: 'TOP SECRET' }); render();\n");
writeFileSync(join(outside, 'lib', 'secret.ts'), "export const leaked = 'TOP SECRET';\n");
writeFileSync(join(outside, '.env'), 'API_KEY=sk_live_abcdef\n');

const app = join(root, 'app');
mkdirSync(join(app, 'resources'), { recursive: true });
symlinkSync(join(outside, 'secret.ts'), join(app, 'resources', 'runs.ts'));
symlinkSync(join(outside, '.env'), join(app, 'resources', 'reads.ts'));
symlinkSync(join(outside, 'lib'), join(app, 'resources', 'lib'));
writeFileSync(join(app, 'resources', 'imports.ts'), "import { leaked } from './lib/secret.ts';\necho(leaked);\n");
writeFileSync(join(app, 'resources', 'inside.ts'), "echo('fine');\n");

// An app whose whole resources directory is a symlink out of it.
const app2 = join(root, 'app2');
mkdirSync(app2);
symlinkSync(outside, join(app2, 'resources'));

const compiler = new Compiler(app);

t.test('a handler file that is a symlink out of the app is refused, and its text is not shown', async (t) => {
  for (const name of ['runs.ts', 'reads.ts']) {
    const artifact = await compiler.get(join(app, 'resources', name));
    t.equal(artifact.ok, false, name);
    if (artifact.ok) continue;
    t.match(artifact.error.text, /outside the app directory/, name);
    t.notMatch(JSON.stringify(artifact.error), /SECRET|sk_live|API_KEY/, name);
  }
});

t.test('so is a handler reached through a symlinked resources directory', async (t) => {
  const artifact = await new Compiler(app2).get(join(app2, 'resources', 'secret.ts'));
  t.match(!artifact.ok && artifact.error.text, /outside the app directory/);
});

t.test('imports through a symlinked directory stay refused; files inside still compile', async (t) => {
  const imports = await compiler.get(join(app, 'resources', 'imports.ts'));
  t.match(!imports.ok && imports.error.text, /Cannot import "\.\/lib\/secret\.ts": it is outside the app directory/);
  t.ok((await compiler.get(join(app, 'resources', 'inside.ts'))).ok);
});
