// The Node flags svc runs with, whichever way it is started (bin/svc.js, the npm scripts, the
// Dockerfile, the test and bench servers; test/unit/node-flags.test.ts checks that each passes all).
//
// --no-node-snapshot: isolated-vm requires it on Node 20 and later. Isolates created beside Node's
//   start-up snapshot can crash the process (isolated-vm's README; laverdet/isolated-vm#420).
// --disable-warning=ExperimentalWarning: Node 24's type stripping and node:sqlite warn once each.
// --max-semi-space-size=8: the host's young generation stays at most 8 MiB per semi-space. V8
//   otherwise grows it past 100 MB under load and does not shrink it while the server idles (a
//   server whose tenants had all gone idle held it). Measured side by side (bench/ab.ts), requests
//   per second do not change.

export const NODE_FLAGS: readonly string[] = ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', '--max-semi-space-size=8'];

/** Whether Node runs without its start-up snapshot (see above), from its command line or NODE_OPTIONS. */
export function nodeSnapshotDisabled(execArgv: readonly string[], nodeOptions = ''): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].includes('--no-node-snapshot');
}
