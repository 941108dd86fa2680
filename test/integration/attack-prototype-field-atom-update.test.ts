// Attack: fields named like Object.prototype members (`constructor`, `toString`, `valueOf`) that a
// member does not have. attack-prototype-field-names covers JSON bodies and the model API's create;
// two other readers of a stored member look the name up with `member[name]`, which finds the
// inherited function when the member has no such field of its own:
//
// - the Atom entry (representation/atom.ts `entry`) writes `<dt>constructor</dt><dd>function
//   Object() { [native code] }</dd>`: an absent field shown with a value, which an Atom client that
//   PUTs the entry back stores as the field's text (data written that no one sent);
// - an update (model/validate.ts `validateUpdate`) keeps a non-editable field's stored value,
//   `existing[field.name]`, which is the inherited function: the store cannot bind it and every
//   update of such a member is 500 internal-error.

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

const ATOM = 'application/atom+xml';

t.test('an Atom entry does not show absent prototype-named fields, and its round trip stores none', async (t) => {
  const model = { fields: { name: { type: 'string' }, constructor: { type: 'string' }, toString: { type: 'string' }, valueOf: { type: 'integer' } } };
  const notes = { fields: { name: { type: 'string' }, constructor: { type: 'string' } } };
  const server = await appServer(t, { models: { things: model, notes }, resources: { 'things.ts': 'svc.delegate();\n', 'notes.ts': 'svc.delegate();\n' } });
  const created = await send(server.at('/resources/things'), 'POST', { name: 'x' });
  t.equal(created.status, 201);

  for (const path of ['/resources/things/1?format_as=atom', '/resources/things?format_as=atom', '/resources/things?format_as=atom&count=5']) {
    const res = await fetch(server.at(path));
    t.equal(res.status, 200, path);
    const body = await res.text();
    t.notMatch(body, /native code/, `${path}: no inherited function is written as a value`);
    t.notMatch(body, /<dt>(constructor|toString|valueOf)<\/dt>/, `${path}: absent fields have no dt/dd`);
  }

  // An Atom client reads a note and puts it back unchanged.
  t.equal((await send(server.at('/resources/notes'), 'POST', { name: 'n' })).status, 201);
  const entry = await (await fetch(server.at('/resources/notes/1'), { headers: { accept: ATOM } })).text();
  const put = await fetch(server.at('/resources/notes/1'), { method: 'PUT', headers: { 'content-type': ATOM }, body: entry });
  t.equal(put.status, 200, 'the entry is put back');
  const json = (await (await fetch(server.at('/resources/notes/1'))).json()) as Record<string, unknown>;
  t.notOk(Object.hasOwn(json, 'constructor'), `the round trip stores no constructor field (stored: ${JSON.stringify(json.constructor)})`);
});

t.test('a member without a non-editable prototype-named field can be updated', async (t) => {
  const model = { fields: { name: { type: 'string' }, constructor: { type: 'string', editable: false } } };
  const server = await appServer(t, {
    models: { things: model, viaApi: { fields: { x: { type: 'string' } } } },
    resources: {
      'things.ts': 'svc.delegate();\n',
      'viaApi.ts': "export function onList() { zput('/request/json/output', svc.collection('things').update(1, { name: 'api' })); render(); }\n",
    },
  });
  t.equal((await send(server.at('/resources/things'), 'POST', { name: 'x' })).status, 201);

  const res = await send(server.at('/resources/things/1'), 'PUT', { name: 'y' });
  const text = await res.text();
  t.equal(res.status, 200, `HTTP update: ${text}`);
  t.notOk(Object.hasOwn(JSON.parse(text) as object, 'constructor'), 'the field stays absent');

  const api = await fetch(server.at('/resources/viaApi'));
  t.equal(api.status, 200, `model-API update: ${await api.text()}`);
});

t.test('a MongoDB document without a prototype-named field reads as a member without it', async (t) => {
  // The MongoDB store reads a member from its document with `doc[key]`: a document (a plain object
  // from the driver) without `constructor` reads Object, whose text is then the field's value, in
  // JSON too.
  const { makeModel } = await import('../fixtures/models.ts');
  const { toMember } = await import('../../src/store/mongodb/documents.ts');
  const model = makeModel('things', { name: 'string', constructor: 'string' as const, toString: 'string' as const });
  const member = toMember(model, { _id: 1, updated: '2024-01-01T00:00:00.000Z', name: 'x' });
  t.strictSame(Object.keys(member), ['id', 'updated', 'name'], `only the fields the document has (got ${JSON.stringify(member)})`);
});
