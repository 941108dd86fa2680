// `svc serve` with the direct runtime (no sandbox at all): the baseline of the sandbox rows.
// Takes the same flags as `svc serve`; prints `svc listening on …` like it.

import { parseConfig } from '../src/cli.ts';
import { directRuntime } from '../src/handler/direct-runtime.ts';
import { start } from '../src/main.ts';

const { config } = parseConfig(process.argv.slice(2), process.env);
const running = await start(config, { runtime: () => directRuntime });
console.log(`svc listening on ${running.url} (direct runtime)`);
process.on('SIGTERM', () => void running.close().then(() => process.exit(0)));
