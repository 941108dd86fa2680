// The runtime without a sandbox: every handler script is served by the default handler.
// Used by `svc check`-free tests of the default handler and as the baseline of the benchmark.

import { runDefault } from './default-handler.ts';
import type { HandlerRuntime } from './runtime.ts';

export const directRuntime: HandlerRuntime = {
  async serve(ex) {
    await runDefault(ex);
  },
  async check() {
    return undefined;
  },
  async close() {},
};
