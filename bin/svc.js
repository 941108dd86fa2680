#!/usr/bin/env node
// Entry point of the `svc` command: runs the TypeScript CLI with Node's own type stripping (Node ≥ 24),
// with the Node flags svc runs with (src/node-flags.ts: isolated-vm requires --no-node-snapshot on Node 20 and later).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`svc needs Node.js 24 or later (this is ${process.version}); run it through npm (npm start / npm run svc), which uses the Node the project installs.`);
  process.exit(1);
}

const { NODE_FLAGS } = await import('../src/node-flags.ts');
// A flag counts as given when its name is (`--max-semi-space-size=16` replaces svc's value).
const name = (flag) => flag.split('=')[0];
const given = new Set([...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(name));
const missing = NODE_FLAGS.filter((f) => !given.has(name(f)));
if (missing.length > 0) {
  // A shebang line cannot pass flags portably: start Node again with them. execve keeps the
  // process id, so a supervisor's signals reach the server itself. Node's execve passes no
  // environment unless given one: PORT, SVC_STORE and every other variable would be dropped.
  const args = [...missing, ...process.execArgv, process.argv[1], ...process.argv.slice(2)];
  if (typeof process.execve === 'function') process.execve(process.execPath, [process.execPath, ...args], process.env);
  // Without execve (Windows): a child process, with the stop signals passed on.
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  const { main } = await import('../src/cli.ts');
  await main();
}
