// A handler that esbuild accepts but V8 refuses (`import.meta` outside a module, a regular
// expression V8 refuses) is 500 handler-compile-error on every request: `svc check` must report it
// too (README "Errors": the script does not compile … `svc check` reports it; "svc check …
// compiles every handler"). And a hashbang, which an ES module may start with, must not make a
// handler fail to compile in the isolate (README: a script is an ES module).

import t from 'tap';
import { check, parseConfig } from '../../src/cli.ts';
import { body, sandboxServer } from './harness.ts';

const M = { fields: { name: { type: 'string' } } };
const resources = {
  'meta.ts': 'export function onList() {\n  echo(String(import.meta.url));\n}\n',
  'regex.ts': "export function onList() {\n  echo(String(/a{2,1}/.test('a')));\n}\n",
  'hashbang.ts': "#!/usr/bin/env node\nexport function onList() {\n  echo('hashbang');\n}\n",
  'fine.ts': "export function onList() {\n  echo('fine');\n}\n",
};

t.test('serve and svc check agree on handlers V8 refuses; a hashbang compiles', async (t) => {
  const s = await sandboxServer({ models: { meta: M, regex: M, hashbang: M, fine: M }, resources });
  t.teardown(() => s.close());

  for (const name of ['meta', 'regex']) {
    const res = await fetch(s.at(`/resources/${name}`));
    t.equal(res.status, 500, name);
    t.match(await body(res), { code: 'handler-compile-error' }, name);
  }
  const hb = await fetch(s.at('/resources/hashbang'));
  t.same([hb.status, await hb.text()], [200, 'hashbang'], 'a hashbang is allowed');
  t.equal(await (await fetch(s.at('/resources/fine'))).text(), 'fine');

  const lines: string[] = [];
  const problems = await check(parseConfig(['check', '--app', s.dir], {}).config, (line) => lines.push(line));
  t.equal(problems, 2, lines.join('\n'));
  t.ok(lines.some((l) => /^resources\/meta\.ts:2:\d+: .*import\.meta/.test(l)), 'import.meta reported with its line');
  t.ok(lines.some((l) => /^resources\/regex\.ts:2:\d+: Invalid regular expression/.test(l)), 'the regular expression reported with its line');
  t.notOk(lines.some((l) => /hashbang|fine/.test(l)), 'nothing about the good ones');
});

t.test('development mode names the place in the source, not in the bundle', async (t) => {
  const s = await sandboxServer({ models: { meta: M }, resources: { 'meta.ts': resources['meta.ts'] } }, { dev: true });
  t.teardown(() => s.close());
  const res = await fetch(s.at('/resources/meta'));
  t.match(await body(res), { code: 'handler-compile-error', detail: /^resources\/meta\.ts:2:\d+: Cannot use 'import\.meta' outside a module$/ });
});
