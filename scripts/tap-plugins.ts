// `npm test` runs this before `tap`: it rebuilds tap's test class when it was built with other
// plugins than package.json configures ("tap": { "plugin": [...] }).
//
// tap starts every test process with the loaders of the plugin set it was built with, read when
// the runner starts. A clean install is built with tap's default set, which adds the TypeScript
// and mock loaders to every test process; `tap` notices the difference and rebuilds, but only for
// the next run. So the first run after `npm ci` (CI's only run) took 5:12 to 6:50 where later runs
// took 3:55 to 4:31, with loaders the suite does not use.

import { execFileSync } from 'node:child_process';
import { TapConfig } from '@tapjs/config';
import { signature } from '@tapjs/test';

const config = await TapConfig.load();
if (config.pluginSignature !== signature) {
  console.error('tap was built with other plugins than package.json configures: tap build');
  execFileSync('tap', ['build'], { stdio: 'inherit' });
}
