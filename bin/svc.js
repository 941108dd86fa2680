#!/usr/bin/env node
// Entry point of the `svc` command: runs the TypeScript CLI with Node's own type stripping (Node ≥ 24).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`svc needs Node.js 24 or later (this is ${process.version}); run it through npm (npm start / npm run svc), which uses the Node the project installs.`);
  process.exit(1);
}
const { main } = await import('../src/cli.ts');
await main();
