// The bench's unindexed model is the example app's employees model with `"index": false` on every
// field, and nothing else changed: its create row measures what the indexes cost, nothing more.

import { readFileSync } from 'node:fs';
import t from 'tap';

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));

t.test('bench/models/employees-unindexed.json is app/models/employees.json without indexes', async (t) => {
  const app = read('app/models/employees.json');
  for (const field of Object.values(app.fields) as Record<string, unknown>[]) field.index = false;
  t.same(read('bench/models/employees-unindexed.json'), app);
});
