// The bench's model variants are the example app's employees model with one thing changed:
// `"index": false` on every field (its create row measures what the indexes cost, nothing more), or
// one declared compound index (its filtered-page row measures what that index gives).

import { readFileSync } from 'node:fs';
import t from 'tap';

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));

t.test('bench/models/employees-unindexed.json is app/models/employees.json without indexes', async (t) => {
  const app = read('app/models/employees.json');
  for (const field of Object.values(app.fields) as Record<string, unknown>[]) field.index = false;
  t.same(read('bench/models/employees-unindexed.json'), app);
});

t.test('bench/models/employees-indexed.json is app/models/employees.json with one declared index', async (t) => {
  const app = read('app/models/employees.json');
  t.same(read('bench/models/employees-indexed.json'), { ...app, indexes: [['born__day', 'name']] });
});
