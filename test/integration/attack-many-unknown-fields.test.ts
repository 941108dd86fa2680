// Attack: a 1 MiB body of 80,000 unknown fields (JSON keys, or dt/dd pairs of an Atom entry).
// Each was reported in the problem's detail and `errors`: about 150 ms of CPU and a 7.7 MB
// response per request. A problem lists at most 100 offending fields and says how many more.

import t, { type Test } from 'tap';
import { notesServer, send } from '../helpers/server.ts';

const server = await notesServer(t, 'string');

const N = 80_000;
const ATOM = 'http://www.w3.org/2005/Atom';
const XHTML = 'http://www.w3.org/1999/xhtml';

async function check(t: Test, res: Response, total: number): Promise<void> {
  t.equal(res.status, 400);
  t.match(res.headers.get('content-type'), /^application\/problem\+json/);
  const text = await res.text();
  t.ok(text.length < 20_000, `problem is ${text.length} bytes`);
  const problem = JSON.parse(text) as { code: string; detail: string; errors: { field: string; message: string }[] };
  t.equal(problem.code, 'invalid-member');
  t.equal(problem.errors.length, 100);
  t.same(problem.errors[0], { field: 'k0', message: 'is not a field of this model' });
  t.match(problem.detail, new RegExp(`and ${total - 100} more`));
}

t.test('80,000 unknown JSON fields are one short 400', async (t) => {
  const body = `{${Array.from({ length: N }, (_, i) => `"k${i}":1`).join(',')}}`;
  // The server runs on this thread: its CPU time, unlike wall-clock time, does not grow with the machine's load.
  const started = process.threadCpuUsage();
  await check(t, await send(server.at('/resources/notes'), 'POST', body), N);
  const used = process.threadCpuUsage(started);
  const cpuMs = (used.user + used.system) / 1000;
  t.ok(cpuMs < 1000, `answered in ${cpuMs.toFixed(0)} ms of CPU`);
});

t.test('4,000 unknown Atom fields are one short 400', async (t) => {
  // As many as the Atom body's element bound (10,000, README "Limits") lets through: two elements a field.
  const dl = Array.from({ length: 4_000 }, (_, i) => `<dt>k${i}</dt><dd/>`).join('');
  const body = `<entry xmlns="${ATOM}"><content type="xhtml"><div xmlns="${XHTML}"><dl>${dl}</dl></div></content></entry>`;
  await check(t, await send(server.at('/resources/notes'), 'POST', body, { 'content-type': 'application/atom+xml' }), 4_000);
});

t.test('a few errors are all listed', async (t) => {
  const res = await send(server.at('/resources/notes'), 'POST', { a: 1, b: 2, text: 3 });
  const problem = (await res.json()) as { detail: string; errors: unknown[] };
  t.equal(problem.errors.length, 3);
  t.notMatch(problem.detail, /more/);
});

t.test('the server still answers and nothing was stored', async (t) => {
  const res = await send(server.at('/resources/notes'), 'GET');
  t.equal(res.status, 200);
  t.same(await res.json(), []);
});
