// The container build context: what the Dockerfile copies exists and is not ignored, and the
// production install (`npm ci --omit=dev`) has every package the server imports.

import t from 'tap';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { ROOT } from '../helpers/server.ts';

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

t.test('every COPY source exists and is in the build context', async (t) => {
  const sources = [...dockerfile.matchAll(/^COPY\s+(.+)\s+\S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
  t.ok(sources.length >= 5);
  for (const src of sources) {
    t.ok(existsSync(join(ROOT, src)), `${src} exists`);
    t.notOk(ignored.includes(src), `${src} is not in .dockerignore`);
  }
});

t.test('the image runs as a non-root user on Node 24 with a health check', async (t) => {
  t.match(dockerfile, /^FROM node:24/m);
  t.match(dockerfile, /^USER node$/m);
  t.match(dockerfile, /HOST=0\.0\.0\.0/);
  t.match(dockerfile, /^HEALTHCHECK .*\n?.*\/healthz/m);
});

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|js)$/.test(f) ? [p] : [];
  });
}

t.test('every package the server imports is a production dependency', async (t) => {
  const deps = new Set(Object.keys(pkg.dependencies));
  const builtins = new Set(builtinModules);
  for (const file of [...files(join(ROOT, 'src')), ...files(join(ROOT, 'bin'))]) {
    for (const m of readFileSync(file, 'utf8').matchAll(/^\s*import\s[^'"]*['"]([^'"]+)['"]/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('.') || spec.startsWith('node:') || builtins.has(spec)) continue;
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
      t.ok(deps.has(name), `${name} (imported by ${file.slice(ROOT.length + 1)}) is in dependencies`);
    }
  }
});
