// OpenAPI: the operations of a handler whose event functions or class come from an imported file
// (README "The three forms": "The class may come from an imported file", the invoices example)
// are the events it serves, as for one that defines them in its own file. Each operation the
// document lists is served (not 405), and each event served is listed.

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

const MODEL = { fields: { title: { type: 'string' } } };

/** method → operation of a path item, without its shared parameters. */
const ops = (item: Record<string, unknown> | undefined) => Object.keys(item ?? {}).filter((k) => k !== 'parameters').sort();

t.test('README’s invoices example: an imported class serves retrieve and create only, and the document says so', async (t) => {
  const server = await appServer(t, {
    models: { invoices: MODEL, orders: MODEL },
    resources: {
      // Verbatim from README "3. Class dispatch".
      'invoices.ts': "import { Invoices } from './lib/invoices.ts';\n\nexport { Invoices };\n",
      // Event functions re-exported from a file of the app (form 2, "exported").
      'orders.ts': "export { onList, onCreate } from './lib/orders.ts';\n",
    },
    files: {
      'resources/lib/invoices.ts':
        'export class Invoices {\n  onRetrieve() {\n    svc.delegate();\n  }\n\n  onCreate() {\n    const invoice = zget(\'/request/body\') ?? {};\n    zput(\'/request/body\', { ...invoice });\n    svc.delegate();\n  }\n}\n',
      'resources/lib/orders.ts': 'export function onList() {\n  svc.delegate();\n}\nexport function onCreate() {\n  svc.delegate();\n}\n',
    },
  });

  // What the server serves.
  const invoices = server.at('/resources/invoices');
  const created = await send(invoices, 'POST', { title: 'a' });
  t.equal(created.status, 201, 'create is served');
  const { id } = (await created.json()) as { id: number };
  t.equal((await fetch(`${invoices}/${id}`)).status, 200, 'retrieve is served');
  const list = await fetch(invoices);
  t.equal(list.status, 405, 'list is not');
  t.equal(list.headers.get('allow'), 'POST', 'the collection serves POST only');
  t.equal((await send(`${invoices}/${id}`, 'PUT', { title: 'b' })).status, 405, 'update is not');
  t.equal((await send(`${invoices}/${id}`, 'DELETE')).status, 405, 'delete is not');
  t.equal((await fetch(server.at('/resources/orders'))).status, 200, 'orders: list is served');
  t.equal((await fetch(server.at('/resources/orders/1'))).status, 405, 'orders: retrieve is not');

  // What the document says.
  const doc = (await (await fetch(server.at('/resources/openapi.json'))).json()) as { paths: Record<string, Record<string, unknown>> };
  t.same(ops(doc.paths['/resources/invoices']), ['post'], 'invoices collection: create only, no list (405)');
  t.same(ops(doc.paths['/resources/invoices/{id}']), ['get'], 'invoices member: retrieve only, no update, delete or postMember (405)');
  t.same(ops(doc.paths['/resources/orders']), ['get', 'post'], 'orders collection: list and create');
  t.notOk(doc.paths['/resources/orders/{id}'], 'orders: no member operation (each is 405)');
});
