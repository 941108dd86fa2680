// OpenAPI: the member schema describes a member as served (README "OpenAPI": "`<model>` for a
// member as served"). A model may lower a string field's max_length (or a text field may become a
// string one) after members were stored: their values are kept and served as they are, so the
// member schema may not bound them. The bound is a rule of the bodies a client sends (create and
// update), where it stays.

import { Ajv2020 } from 'ajv/dist/2020.js';
import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

t.test('a stored value over a lowered max_length is served, and the member schema admits it', async (t) => {
  const model = (bound: number) => JSON.stringify({ fields: { name: { type: 'string', max_length: bound } } });
  const server = await appServer(t, { models: { people: model(100) }, resources: { 'people.ts': 'svc.delegate();\n' } });
  const url = server.at('/resources/people');
  const long = 'x'.repeat(80);
  const created = await send(url, 'POST', { name: long });
  t.equal(created.status, 201);
  const { id } = (await created.json()) as { id: number };

  server.write('models/people.json', model(50));
  const served = (await (await fetch(`${url}/${id}`)).json()) as Record<string, unknown>;
  t.equal(served.name, long, 'the server serves the stored value as it is');
  const listed = (await (await fetch(url)).json()) as unknown[];

  const doc = (await (await fetch(server.at('/resources/openapi.json'))).json()) as any;
  t.equal(doc.components.schemas['people.create'].properties.name.maxLength, 50, 'create bodies are bound');
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const member = ajv.compile(doc.components.schemas.people);
  t.ok(member(served), `the retrieved member matches the member schema: ${JSON.stringify(member.errors)}`);
  const list = ajv.compile({ type: 'array', items: doc.components.schemas.people });
  t.ok(list(listed), `the list matches its schema: ${JSON.stringify(list.errors)}`);
});
