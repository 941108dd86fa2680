// The one reader of a tenant's files (svc.json, models, handlers): a file of the app is read only
// when it is a regular file inside the app directory, without waiting on a named pipe, and never
// past its bound. Model files were read whole whatever they were: a FIFO put in place of one froze
// the process, and a model file of a gigabyte was read and parsed on the event loop.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { AppFileError, readAppFile } from '../../src/model/app-file.ts';

const MiB = 1024 * 1024;

const root = mkdtempSync(join(tmpdir(), 'svc-app-file-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const app = join(root, 'app');
const other = join(root, 'other');
mkdirSync(join(app, 'models'), { recursive: true });
mkdirSync(join(app, 'shared'));
mkdirSync(join(other, 'models'), { recursive: true });
writeFileSync(join(app, 'svc.json'), '{"env":{"A":"b"}}');
writeFileSync(join(app, 'shared', 'notes.json'), '{"fields":{}}');
symlinkSync('../shared/notes.json', join(app, 'models', 'notes.json'));
writeFileSync(join(other, 'svc.json'), '{"env":{"API_KEY":"other-secret"}}');
symlinkSync(join(other, 'svc.json'), join(app, 'models', 'linked.json'));
symlinkSync('/dev/zero', join(app, 'models', 'zero.json'));

/** The refusal readAppFile throws for `file` of `dir`, or the text it read. */
function read(file: string, maxBytes = MiB, dir = app): AppFileError | string {
  try {
    return readAppFile(dir, file, maxBytes);
  } catch (err) {
    if (err instanceof AppFileError) return err;
    throw err;
  }
}

/** Bytes this process has read through read(2) and the like so far; undefined without /proc. */
function bytesRead(): number | undefined {
  if (!existsSync('/proc/self/io')) return undefined;
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

t.test('a regular file of the app is read, through a link that stays inside it too', async (t) => {
  t.equal(read('svc.json'), '{"env":{"A":"b"}}');
  t.equal(read('models/notes.json'), '{"fields":{}}');
});

t.test('a link out of the app is refused, naming the file, without a byte of its target', async (t) => {
  for (const file of ['models/linked.json', 'models/zero.json']) {
    const err = read(file);
    t.match(err, { refusal: 'outside', file, message: `${file} is a link to a file outside the app directory: make it a file of the app` }, file);
    t.notMatch(String(err), /other-secret/);
  }
});

t.test('a models directory linked out of the app: its files are outside too', async (t) => {
  const app2 = join(root, 'app2');
  mkdirSync(app2);
  symlinkSync(join(other, 'models'), join(app2, 'models'));
  writeFileSync(join(other, 'models', 'secret.json'), '{"fields":{"other_only":{"type":"string"}}}');
  t.match(read('models/secret.json', MiB, app2), { refusal: 'outside' });
});

t.test('a named pipe is refused at once, not waited on', { skip: process.platform === 'win32' && 'no mkfifo' }, async (t) => {
  execFileSync('mkfifo', [join(app, 'models', 'pipe.json')]);
  // Opened without O_NONBLOCK, a FIFO with no writer blocks here, and the test with it.
  t.match(read('models/pipe.json'), { refusal: 'not-a-file', message: /^models\/pipe\.json is not a regular file/ });
});

t.test('a directory is not a file', async (t) => {
  mkdirSync(join(app, 'models', 'dir.json'));
  t.match(read('models/dir.json'), { refusal: 'not-a-file' });
});

t.test('a file over the bound is refused naming the file and the bound, and is not read', async (t) => {
  writeFileSync(join(app, 'models', 'at.json'), 'x'.repeat(MiB));
  t.equal((read('models/at.json') as string).length, MiB, 'a file at the bound is read');
  writeFileSync(join(app, 'models', 'over.json'), 'x'.repeat(MiB + 1));
  t.match(read('models/over.json'), { refusal: 'too-large', message: 'models/over.json is over 1 MiB (1048576 bytes), the most the server reads of it: make it smaller' });
  t.match(read('svc.json', 4), { refusal: 'too-large', message: 'svc.json is over 4 bytes, the most the server reads of it: make it smaller' });

  // A gigabyte, sparse: it takes no disk, but reading it would take 1 GiB of reads.
  writeFileSync(join(app, 'models', 'huge.json'), '');
  truncateSync(join(app, 'models', 'huge.json'), 1024 * MiB);
  const before = bytesRead();
  t.match(read('models/huge.json'), { refusal: 'too-large' });
  if (before !== undefined) t.ok(bytesRead()! - before < MiB, 'none of it was read');
});

t.test('nothing there is missing', async (t) => {
  t.match(read('models/none.json'), { refusal: 'missing' });
  symlinkSync('gone.json', join(app, 'models', 'dangling.json'));
  t.match(read('models/dangling.json'), { refusal: 'missing' });
});
