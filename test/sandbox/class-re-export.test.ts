// Form 3 with the class re-exported from an imported file (SPEC §8: "a class named like the
// collection (any case) or the default export ... The class may come from an imported file";
// README "The three forms"). `export { Invoices } from './lib/invoices.ts'` and
// `export * from './lib/invoices.ts'` export the class as surely as `import { Invoices } …;
// export { Invoices };` does, yet the class was not found: the script ran as a top-level script
// and every event was 204. Event functions re-exported the same way were found.

import t from 'tap';
import { PEOPLE, sandboxServer } from './harness.ts';

const s = await sandboxServer({
  models: { reexported: PEOPLE, starred: PEOPLE, renamed: PEOPLE, functions: PEOPLE },
  resources: {
    'lib/classes.ts': `
      export class Reexported { onList() { echo('Reexported list'); } }
      export class Starred { list() { echo('Starred list'); } }
      export class Inner { onRetrieve() { echo('renamed retrieve ' + zget('/request/params/renamedId')); } }`,
    'lib/fns.ts': `export function onList() { echo('function list'); }`,
    'reexported.ts': `export { Reexported } from './lib/classes.ts';`,
    'starred.ts': `export * from './lib/classes.ts';`,
    'renamed.ts': `export { Inner as Renamed } from './lib/classes.ts';`,
    'functions.ts': `export * from './lib/fns.ts';`,
  },
});
t.teardown(() => s.close());

t.test('export { Class } from: the class is dispatched to', async (t) => {
  const res = await fetch(s.at('/resources/reexported'));
  t.equal(res.status, 200);
  t.equal(await res.text(), 'Reexported list');
  const other = await fetch(s.at('/resources/reexported/1'));
  t.equal(other.status, 405, 'an event the class does not implement');
  t.equal(other.headers.get('allow'), '');
});

t.test('export * from: the class named like the collection is dispatched to', async (t) => {
  const res = await fetch(s.at('/resources/starred'));
  t.equal(res.status, 200);
  t.equal(await res.text(), 'Starred list');
});

t.test('export { Inner as Renamed } from: exported under the collection\'s name', async (t) => {
  const res = await fetch(s.at('/resources/renamed/4'));
  t.equal(res.status, 200);
  t.equal(await res.text(), 'renamed retrieve 4');
});

t.test('event functions re-exported the same way are found (as before)', async (t) => {
  const res = await fetch(s.at('/resources/functions'));
  t.equal(res.status, 200);
  t.equal(await res.text(), 'function list');
});
