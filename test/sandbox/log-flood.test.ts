// Attack: flooding the server log (and the disk under it) with console output from one request.

import t from 'tap';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { flood: PEOPLE },
  resources: {
    'flood.ts': `
      const n = Number(zget('/request/params/n'));
      const line = 'x'.repeat(Number(zget('/request/params/size')));
      for (let i = 0; i < n; i++) console.log(line);
      echo('done');`,
  },
});
t.teardown(() => s.close());

const lines = (size: number) => s.log.filter((l) => l.startsWith('svc: [app/flood list] log: ') && l.length === 'svc: [app/flood list] log: '.length + size).length;
const notices = () => s.log.filter((l) => /console output over 1000 lines or 1048576 characters/.test(l)).length;

t.test('a request logs at most 1000 lines, then one line says the rest was dropped', async (t) => {
  const res = await fetch(s.at('/resources/flood?n=20000&size=1'));
  t.equal(res.status, 200, 'the handler itself is not stopped');
  t.equal(await body(res), 'done');
  t.equal(lines(1), 1000);
  t.equal(notices(), 1);
});

t.test('and at most 1 MiB of text', async (t) => {
  const res = await fetch(s.at('/resources/flood?n=2000&size=8000'));
  t.equal(res.status, 200);
  t.equal(lines(8000), 131, '131 lines of 8000 characters reach 1 MiB');
  t.equal(notices(), 2);
});

t.test('the cap is per request', async (t) => {
  const res = await fetch(s.at('/resources/flood?n=10&size=2'));
  t.equal(res.status, 200);
  t.equal(lines(2), 10);
  t.equal(notices(), 2);
});
