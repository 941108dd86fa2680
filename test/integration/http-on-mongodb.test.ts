// The CRUD, query, conditional-request and Atom suites over HTTP on `--store mongodb://`: the real
// driver against the in-process wire server (test/mongo-wire/server.ts), or against a real
// MongoDB when SVC_TEST_MONGODB_URI is set. Each suite's servers get a database of their own.

import t from 'tap';
import { startMongoWireServer } from '../mongo-wire/server.ts';

const real = process.env.SVC_TEST_MONGODB_URI;
const wire = real ? undefined : await startMongoWireServer();
t.teardown(() => wire?.stop());
process.env.SVC_TEST_STORE = real ?? wire!.uri;
t.comment(`store: ${real ? 'SVC_TEST_MONGODB_URI' : `the wire test server at ${wire!.uri}`}`);

await import('./crud.test.ts');
await import('./etag-per-representation.test.ts');
await import('./query.test.ts');
await import('../atom/atom.integration.test.ts');

t.test('the suites above ran on MongoDB', async (t) => {
  if (!wire) return;
  const names = new Set(wire.commands.map((c) => c.name));
  for (const name of ['insert', 'find', 'update', 'delete', 'findAndModify', 'createIndexes']) t.ok(names.has(name), `${name} reached the database`);
});
