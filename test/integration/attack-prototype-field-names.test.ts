// Attack: fields named like Object.prototype members (`valueOf`, `toString`, `constructor`). A body
// without them must not read the inherited functions as values, over HTTP or the model API.

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

const MODEL = { fields: { name: { type: 'string' }, valueOf: { type: 'integer' }, toString: { type: 'string' }, hasOwnProperty: { type: 'boolean' } } };

t.test('absent prototype-named fields are absent', async (t) => {
  const server = await appServer(t, {
    models: { things: MODEL, viaApi: MODEL },
    resources: {
      'things.ts': 'svc.delegate();\n',
      'viaApi.ts': "export function onCreate() { zput('/request/json/output', svc.collection('things').create({ name: 'api' })); render(); }\n",
    },
  });
  const created = await send(server.at('/resources/things'), 'POST', { name: 'x' });
  t.equal(created.status, 201, await created.clone().text());
  t.same(Object.keys((await created.json()) as object).sort(), ['id', 'name', 'updated']);
  const both = await send(server.at('/resources/things'), 'POST', { name: 'y', valueOf: 3, toString: 'z', hasOwnProperty: true });
  t.match(await both.json(), { valueOf: 3, toString: 'z', hasOwnProperty: true }, 'and present ones are stored');
  const api = await send(server.at('/resources/viaApi'), 'POST', {});
  t.equal(api.status, 200, 'the model API creates it too');
  t.match(await api.json(), { name: 'api' });
});
