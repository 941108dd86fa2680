// Loaded into every test process before its test file (package.json, "tap" "node-arg": --import):
// Node's compile cache (https://nodejs.org/api/module.html#module-compile-cache) for the test
// process and, through NODE_COMPILE_CACHE, for every svc process a test starts. Each test file is
// a process that loads tap and most of svc (about 300 modules), and so is each server or CLI run a
// test starts; compiling them again in every one of those processes was a third of the suite's
// CPU time. The cache is V8's code for a module's exact source (a changed file is compiled
// afresh), kept under node_modules/.cache, which a clean install starts empty.

import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';

process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('../../node_modules/.cache/svc-test-compile-cache', import.meta.url));
enableCompileCache(process.env.NODE_COMPILE_CACHE);
