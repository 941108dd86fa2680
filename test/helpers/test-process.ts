// Loaded into every test process before its test file (package.json, "tap" "node-arg": --import),
// for it and for the processes it starts (servers, CLI runs):
//
// - Node's compile cache (https://nodejs.org/api/module.html#module-compile-cache) for the test
//   process and, through NODE_COMPILE_CACHE, for every svc process a test starts. Each test file is
//   a process that loads tap and most of svc (about 300 modules), and so is each server or CLI run
//   a test starts; compiling them again in every one of those processes was a third of the suite's
//   CPU time. The cache is V8's code for a module's exact source (a changed file is compiled
//   afresh), kept under node_modules/.cache, which a clean install starts empty.
// - No tap hooks in the processes a test starts: tap runs each test file with an --import of
//   @tapjs/processinfo in NODE_OPTIONS (its module-loading hooks, on a thread of their own in
//   Node 24.9), which every child process inherits. It took a child 0.38 s more to start (a test
//   file run by node: 0.68 s with it, 0.31 s without), for each of the ~55 servers and CLI runs a
//   suite starts. It records which files a process loaded, for coverage (off here) and `tap
//   --changed`, which then knows a test by its own process's files only. It also gave each child
//   signal-exit's SIGTERM listener from its first moment, so a child's own signal handling was
//   not what a test saw (test/integration/signals-before-listening.test.ts).

import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';

process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('../../node_modules/.cache/svc-test-compile-cache', import.meta.url));
enableCompileCache(process.env.NODE_COMPILE_CACHE);

const withoutTapHooks = (process.env.NODE_OPTIONS ?? '').replace(/"?--(?:import|loader|experimental-loader)=[^"\s]*@tapjs[^"\s]*"?/g, '').trim();
if (withoutTapHooks === '') delete process.env.NODE_OPTIONS;
else process.env.NODE_OPTIONS = withoutTapHooks;
// @tapjs/processinfo also puts its --import back into each spawn's environment, through
// process-on-spawn's listeners (a singleton on the global object): those are emptied. Should that
// package change, children are only slower again.
const spawnHooks = (globalThis as Record<symbol, { listeners?: unknown[] } | undefined>)[Symbol.for('process-on-spawn@*:singletonId')];
if (Array.isArray(spawnHooks?.listeners)) spawnHooks.listeners.length = 0;
