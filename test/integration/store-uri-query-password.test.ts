// README "Configuration": "A MongoDB that cannot be reached at start-up stops the server with one
// line naming the store URI (without its password)". A MongoDB URI carries passwords in its query
// too (`proxyPassword` for a SOCKS5 proxy, `tlsCertificateKeyFilePassword`, an AWS session token in
// `authMechanismProperties`): only the user and password before `@` were taken out, so the start-up
// error and the `listening` line (which a log collects) printed the others in clear.

import t from 'tap';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NODE, NODE_FLAGS, spawnServer } from '../helpers/process.ts';
import { EXAMPLE_APP, ROOT } from '../helpers/server.ts';
import { startMongoWireServer } from '../mongo-wire/server.ts';

const db = await startMongoWireServer();
t.teardown(() => db.stop());
await db.stop(); // the database is down when svc starts
const uri =
  `mongodb://admin:hunter1@127.0.0.1:${db.port}/svc?serverSelectionTimeoutMS=500&connectTimeoutMS=500` +
  '&proxyHost=127.0.0.1&proxyPort=1&proxyUsername=proxy&proxyPassword=hunter2&authMechanismProperties=AWS_SESSION_TOKEN:hunter3';

t.test('the start-up error names the store without any of its passwords', async (t) => {
  const err = await promisify(execFile)(NODE, [...NODE_FLAGS, join(ROOT, 'src/cli.ts'), 'serve', '--app', EXAMPLE_APP, '--port', '0', '--store', uri]).then(
    () => undefined,
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  t.ok(err, 'it did not start');
  t.equal(err!.code, 1);
  t.match(err!.stderr, /cannot reach MongoDB/);
  t.match(err!.stderr, /127\.0\.0\.1/, 'the store is named');
  t.notMatch(err!.stdout + err!.stderr, /hunter\d/, 'no password');
});

t.test('the listening line names the store without any of its passwords', async (t) => {
  const server = await spawnServer(['--app', EXAMPLE_APP, '--store', uri, '--wait-for-store']);
  t.teardown(() => void server.child.kill('SIGKILL'));
  const [line] = await server.waitFor(/^svc listening on .*$/m);
  t.match(line, /store mongodb:\/\//);
  t.notMatch(line, /hunter\d/, 'no password');
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
  t.notMatch(server.output(), /hunter\d/, 'nor anywhere in its output');
});
