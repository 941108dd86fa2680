// ARCHITECTURE.md's one direction of arrows, kept true: every import in src/ (type-only ones too)
// goes from a part to a part it may depend on, and no file imports itself back through others.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/server.ts';

const SRC = join(ROOT, 'src');

/** Part → the parts it may import (besides itself). The order is the life of a request, read backwards. */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  errors: [],
  model: ['errors'],
  routing: ['errors', 'model'],
  representation: ['errors', 'model'],
  store: ['errors', 'model'],
  exchange: ['errors', 'model', 'routing', 'representation', 'store'],
  handler: ['errors', 'model', 'routing', 'representation', 'store', 'exchange'],
  sandbox: ['errors', 'model', 'routing', 'representation', 'store', 'exchange', 'handler', 'malloc-trim', 'turn'],
  server: ['errors', 'model', 'routing', 'representation', 'store', 'exchange', 'turn'],
  config: ['exchange'],
  tenancy: ['errors', 'model', 'store', 'exchange', 'config', 'malloc-trim'],
  cluster: ['exchange'],
  'node-flags': [],
  'malloc-trim': [],
  turn: [],
  'process-exit': [],
  main: ['*'],
  cli: ['*'],
};

const partOf = (file: string): string => relative(SRC, file).split('/')[0]!.replace(/\.ts$/, '');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Relative imports of a file, resolved: `import … from`, `import type …`, `export … from`, `import('…')`. */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]|\bimport\s*\(\s*['"](\.[^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]/g)];
  return specs.map((m) => resolve(dirname(file), (m[1] ?? m[2] ?? m[3])!));
}

const files = sources(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));

t.test('the import parser sees every form of import', async (t) => {
  const f = join(SRC, 'server', 'x.ts');
  const text = "import a from './a.ts';\nimport type { B } from '../b.ts';\nexport { c } from './c.ts';\nimport {\n  d,\n} from './d.ts';\nconst e = await import('./e.ts');\nimport './f.ts';\n";
  t.same(importsOf(f, text).map((p) => relative(SRC, p)), ['server/a.ts', 'b.ts', 'server/c.ts', 'server/d.ts', 'server/e.ts', 'server/f.ts']);
});

t.test('every part is in the table', async (t) => {
  t.same([...new Set(files.map(partOf))].filter((p) => !(p in ALLOWED)), []);
});

t.test('imports go one way only', async (t) => {
  const wrong: string[] = [];
  for (const [file, imports] of graph) {
    const from = partOf(file);
    for (const target of imports) {
      const to = partOf(target);
      if (to === from || ALLOWED[from]?.includes('*') || ALLOWED[from]?.includes(to)) continue;
      wrong.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)} (${from} → ${to})`);
    }
  }
  t.same(wrong, [], 'see ARCHITECTURE.md for the direction of arrows');
});

t.test('no file imports itself back through other files', async (t) => {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' → '));
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of files) visit(file, []);
  t.same(cycles, []);
});
