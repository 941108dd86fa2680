// Attack: a model file within its 1 MiB whose every field is wrong, each under a name of hundreds of
// characters. The reason it is invalid quoted every name whole and listed every fault: 3 MB, in each
// 500 model-invalid answer of the collection, in the log and in svc check. Now a name is cut after
// 60 characters and the first 100 faults are listed, with how many more.

import t from 'tap';
import { loadModel } from '../../src/model/load.ts';

const reason = (fields: Record<string, unknown>): string => {
  const r = loadModel('/app/models/m.json', JSON.stringify({ fields }));
  if (r.ok) throw new Error('accepted');
  return r.reason;
};

t.test('every field wrong under a long name: a reason of kilobytes, naming the first 100 faults', async (t) => {
  const cases: Record<string, (name: string) => [string, unknown]> = {
    'a name that is no field name': (name) => [`${name}.x`, { type: 'string' }],
    'unknown types and options': (name) => [name, { type: 'strin', bogus: 1, max_length: -1 }],
    'defaults of the wrong type': (name) => [name, { type: 'integer', default_value: 'x' }],
    'max_length on a number': (name) => [name, { type: 'integer', max_length: 5 }],
  };
  for (const [what, field] of Object.entries(cases)) {
    const fields = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => field(`f${i}_`.padEnd(900, 'x'))));
    const text = reason(fields);
    t.ok(text.length < 20_000, `${what}: ${text.length} characters`);
    t.match(text, /; and \d+ more$/, `${what}: says how many more`);
    t.match(text, /^fields\.f0_x{57}…/, `${what}: the name cut, and said where`);
  }
});

t.test('a few faults are all listed, short names whole', async (t) => {
  const text = reason({ a: { type: 'integer', default_value: 'x' }, b: { type: 'strin' } });
  t.match(text, 'fields.b.type: unknown type "strin"');
  t.notMatch(text, 'more');
});
