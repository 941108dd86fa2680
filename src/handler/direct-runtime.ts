// The runtime without a sandbox: every handler script is served by the default handler, whatever
// it says. The baseline of the sandbox rows of `npm run bench` (bench/svc-direct.ts).

import { DEFAULT_HANDLER_EVENTS, runDefault } from './default-handler.ts';
import type { HandlerRuntime } from '../exchange/runtime.ts';

export const directRuntime: HandlerRuntime = {
  async serve(ex) {
    await runDefault(ex);
  },
  async check() {
    return undefined;
  },
  async events() {
    return DEFAULT_HANDLER_EVENTS;
  },
  isolates() {
    return 0;
  },
  async close() {},
};
