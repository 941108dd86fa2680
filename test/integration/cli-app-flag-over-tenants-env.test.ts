// README "Configuration": "Flags win over environment variables." `svc serve --app DIR` (or
// `svc check --app DIR`) with SVC_TENANTS set in the environment (a shell, an image) served or
// checked the tenants and ignored the flag without a word; and `--app A --tenants T` ignored --app
// likewise. The flag given is what runs; both flags at once are refused (exit code 2), as the usage
// line `svc check [--app DIR | --tenants DIR]` says they are one or the other.

import t from 'tap';
import { parseConfig } from '../../src/cli.ts';
import { runSvc } from '../helpers/process.ts';
import { EXAMPLE_APP } from '../helpers/server.ts';
import { join } from 'node:path';
import { ROOT } from '../helpers/server.ts';

t.test('--app wins over SVC_TENANTS', async (t) => {
  const { config } = parseConfig(['serve', '--app', '/b'], { SVC_TENANTS: '/t' });
  t.equal(config.app, '/b');
  t.equal(config.tenants, undefined, 'single-app mode, as the flag says');
  t.equal(parseConfig(['check', '--app', '/b'], { SVC_TENANTS: '/t' }).config.tenants, undefined, 'svc check too');
  // The environment alone still decides as before: SVC_TENANTS over SVC_APP, and --tenants over SVC_APP.
  t.equal(parseConfig(['serve'], { SVC_APP: '/a', SVC_TENANTS: '/t' }).config.tenants, '/t');
  t.equal(parseConfig(['serve', '--tenants', '/t'], { SVC_APP: '/a' }).config.tenants, '/t');
});

t.test('--app and --tenants together are refused', async (t) => {
  t.throws(() => parseConfig(['serve', '--app', '/a', '--tenants', '/t'], {}), /--app.*--tenants/);
  const { code, out } = await runSvc(['check', '--app', EXAMPLE_APP, '--tenants', join(ROOT, 'tenants')]);
  t.equal(code, 2, out);
});

t.test('svc check --app with SVC_TENANTS set checks the app', async (t) => {
  const { execFile } = await import('node:child_process');
  const { NODE, NODE_FLAGS } = await import('../helpers/process.ts');
  const out = await new Promise<string>((resolve) =>
    execFile(NODE, [...NODE_FLAGS, join(ROOT, 'src/cli.ts'), 'check', '--app', EXAMPLE_APP], { env: { ...process.env, SVC_TENANTS: join(ROOT, 'tenants') } }, (_e, stdout, stderr) =>
      resolve(stdout + stderr),
    ),
  );
  t.match(out, /svc check: 2 models, 2 handlers: ok/, out);
  t.notMatch(out, /tenants/);
});
