// GET /resources/openapi.json: a valid OpenAPI 3.1 document of the app, with the operations its
// handlers serve (405s are not advertised), the query conditions each field type takes, paging
// headers, problems, JSON and Atom.

import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { EXAMPLE_APP, appServer, startServer } from '../helpers/server.ts';

const MODELS = {
  people: {
    fields: {
      name: { type: 'string', required: true, max_length: 20, label: 'Name' },
      age: { type: 'integer' },
      born: { type: 'date' },
      badge: { type: 'string', editable: false },
      count: { type: 'integer' },
    },
  },
  notes: { fields: { text: { type: 'text' } } },
  quiet: { fields: { x: { type: 'boolean' } } },
};

async function validate(doc: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  const validator = new Validator();
  return (await validator.validate(doc as never)) as { valid: boolean; errors?: unknown };
}

t.test('the example app: a document the standard validator accepts', async (t) => {
  const server = await startServer({ appDir: EXAMPLE_APP });
  t.teardown(() => server.close());
  const res = await fetch(server.at('/resources/openapi.json'));
  t.equal(res.status, 200);
  const doc = (await res.json()) as any;
  const result = await validate(doc);
  t.ok(result.valid, JSON.stringify(result.errors));
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.servers[0].url, server.url);
  t.ok(doc.paths['/resources/employees'].get, 'list');
  t.equal((await fetch(server.at('/resources/openapi.json'), { method: 'POST' })).status, 405);
});

t.test('operations follow the handlers: the default handler’s five, a handler’s own events, no model without a handler', async (t) => {
  const server = await appServer(t, {
    models: MODELS,
    resources: {
      'people.ts': 'svc.delegate();\n',
      'notes.ts': 'export function onList() { svc.delegate(); }\nexport function onCreate() { svc.delegate(); }\nexport function onPostMember() { echo("hi"); }\n',
    },
  });
  const doc = (await (await fetch(server.at('/resources/openapi.json'))).json()) as any;
  t.ok((await validate(doc)).valid);
  t.same(Object.keys(doc.paths['/resources/people']).sort(), ['get', 'post']);
  t.same(Object.keys(doc.paths['/resources/people/{id}']).filter((k) => k !== 'parameters').sort(), ['delete', 'get', 'put'], 'no POST on a member: the default handler answers it 405');
  t.same(Object.keys(doc.paths['/resources/notes']).sort(), ['get', 'post']);
  t.same(Object.keys(doc.paths['/resources/notes/{id}']).filter((k) => k !== 'parameters'), ['post'], 'postMember only');
  t.notOk(doc.paths['/resources/quiet'], 'a model without a handler is not served');

  const list = doc.paths['/resources/people'].get;
  const names = list.parameters.map((p: any) => p.name);
  for (const n of ['start', 'count', 'order_by', 'name__icontains', 'age__gte', 'born__year', 'name__in', 'id__range', 'count__exact']) t.ok(names.includes(n), n);
  t.notOk(names.includes('age__icontains'), 'text conditions only on text fields');
  t.notOk(names.filter((n: string) => n === 'count').length > 1, 'a field named count is filtered with count__exact only');
  t.ok(list.responses['200'].headers['X-Total-Count'] && list.responses['200'].headers.Link, 'paging headers');
  t.ok(list.responses['200'].content['application/atom+xml'], 'Atom too');
  t.equal(list.responses['400'].$ref, '#/components/responses/Problem');
  t.same(doc.components.schemas.peopleInput.required, ['name']);
  t.notOk('badge' in doc.components.schemas.peopleInput.properties, 'non-editable fields are not input');
  t.equal(doc.components.schemas.people.properties.badge.readOnly, true);
  t.equal(doc.components.schemas.people.properties.name.maxLength, 20);
  t.ok(doc.components.schemas.Problem.properties.code.enum.includes('precondition-failed'));
});
