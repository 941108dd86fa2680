// The runtime without a sandbox: every handler script is served by the default handler, whatever
// it says. The baseline of the sandbox rows of `npm run bench` (bench/svc-direct.ts).

import { runDefault } from './default-handler.ts';
import type { HandlerRuntime } from '../exchange/runtime.ts';

export const directRuntime: HandlerRuntime = {
  async serve(ex) {
    await runDefault(ex);
  },
  async check() {
    return undefined;
  },
  isolates() {
    return 0;
  },
  async close() {},
};
