// The stub exchange (test/helpers/stub-exchange.ts) drives a sandbox runtime without a socket, as
// bench/sandbox-memory.ts does. Its request had no socket, which HttpResponse reads on a write since
// 1848f3e: every echo() through it failed ("the server could not complete this call"), and the
// bench's memory check with it.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { resolveLimits } from '../../src/exchange/limits.ts';
import { Logger } from '../../src/exchange/log.ts';
import { createSandboxRuntime } from '../../src/sandbox/runtime.ts';
import { stubExchange } from '../helpers/stub-exchange.ts';

t.test("a handler's echo() through the stub exchange is written", async (t) => {
  const dir = t.testdir();
  mkdirSync(join(dir, 'resources'));
  const handler = join(dir, 'resources', 'w.ts');
  writeFileSync(handler, "export function onList() { echo('hello'); echo(' world'); }\n");
  const runtime = createSandboxRuntime({ name: 'stub', dir, limits: resolveLimits(), log: new Logger(() => {}) });
  t.teardown(() => runtime.close());
  const ex = stubExchange({ collection: 'w', handler });
  await runtime.serve(ex);
  t.equal(ex.res.status, 200);
  t.equal(ex.res.written, Buffer.byteLength('hello world'), 'both pieces written');
});
