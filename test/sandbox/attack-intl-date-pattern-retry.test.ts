// Attack: a refused date pattern, asked for again. A Date's toLocaleString (and toLocaleDateString,
// toLocaleTimeString) without options is answered by V8 from a formatter it keeps for the last
// locales string of each method, and the runtime skips counting (and admitting) a call whose
// locales are those of the last one (runtime/prelude.js, countedMethod). It took the locales as
// the last ones before the host's admission: when the host refused them, the call threw, but the
// same call again was taken for one V8 answers from its formatter, and went to V8 unadmitted,
// which made the formatter, and the pattern generator V8 keeps for the life of the process. An app
// past its share of new combinations made every refused one so, calling it twice: 20 requests of
// 300 new combinations grew the process 67 MiB (9 MiB with the fix), without bound. Now the locales
// are taken as the last ones only once admitted: the second call is refused as the first.

import t from 'tap';
import { MAX_DATE_PATTERNS_PER_APP } from '../../src/sandbox/ops/intl.ts';
import { body, PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer(
  {
    models: { probe: PEOPLE },
    resources: {
      'probe.ts': `
        export function onList() {
          const from = Number(zget('/request/params/from'));
          const n = Number(zget('/request/params/n'));
          const how = zget('/request/params/how');
          const systems = Intl.supportedValuesOf('numberingSystem');
          const answers = [];
          for (let i = from; i < from + n; i++) {
            const tag = 'de-u-nu-' + systems[i % systems.length] + '-hc-' + ['h11', 'h12', 'h23', 'h24'][Math.floor(i / systems.length) % 4];
            for (let call = 0; call < 2; call++) {
              try {
                if (how === 'array') answers.push([new Date(0)].toLocaleString(tag));
                else answers.push(new Date(0)[how](tag));
              } catch (e) {
                answers.push(e.name);
              }
            }
          }
          zput('/request/json/output', answers);
          render();
        }`,
    },
  },
  { limits: { cpuLimitMs: 5000, wallLimitMs: 20_000 } },
);
t.teardown(() => s.close());

const made = (answers: string[]) => answers.filter((a) => a !== 'RangeError').length;

t.test('past its share, a new combination asked for twice is refused twice', async (t) => {
  const share = (await body(await fetch(s.at(`/resources/probe?from=0&n=${MAX_DATE_PATTERNS_PER_APP}&how=toLocaleString`)))) as string[];
  t.equal(made(share), 2 * MAX_DATE_PATTERNS_PER_APP, 'within the share: each made, the second from V8’s formatter');
  for (const how of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString', 'array']) {
    const answers = (await body(await fetch(s.at(`/resources/probe?from=${MAX_DATE_PATTERNS_PER_APP}&n=20&how=${how}`)))) as string[];
    t.same(answers, Array(40).fill('RangeError'), `${how}: every call refused`);
  }
  const again = (await body(await fetch(s.at(`/resources/probe?from=0&n=10&how=toLocaleString`)))) as string[];
  t.equal(made(again), 20, 'combinations admitted before are still made');
});
