// GET /resources/openapi.json: a valid OpenAPI 3.1 document of the app, with the operations its
// handlers serve (405s are not advertised), the query conditions each field type takes, paging
// headers, problems, JSON and Atom.

import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { EXAMPLE_APP, appServer, send, startServer } from '../helpers/server.ts';

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
  t.same(doc.components.schemas['people.create'].required, ['name']);
  t.same(doc.components.schemas['people.update'].required, ['name']);
  t.equal(doc.components.schemas.people.properties.badge.readOnly, true);
  t.equal(doc.components.schemas.people.properties.name.maxLength, 20);
  t.ok(doc.components.schemas['svc.Problem'].properties.code.enum.includes('precondition-failed'));
});

t.test('the create and update schemas say what the server accepts and refuses', async (t) => {
  const server = await appServer(t, {
    models: {
      staff: {
        fields: {
          name: { type: 'string', required: true },
          badge: { type: 'string', editable: false, required: true },
          kind: { type: 'string', required: true, default_value: 'temp' },
          note: { type: 'string', editable: false },
        },
      },
    },
    resources: { 'staff.ts': 'svc.delegate();\n' },
  });
  const doc = (await (await fetch(server.at('/resources/openapi.json'))).json()) as any;
  t.ok((await validate(doc)).valid);
  const schemas = doc.components.schemas;
  const resolve = (body: any) => schemas[body.content['application/json'].schema.$ref.replace('#/components/schemas/', '')];
  const create = resolve(doc.paths['/resources/staff'].post.requestBody);
  const update = resolve(doc.paths['/resources/staff/{id}'].put.requestBody);
  const url = server.at('/resources/staff');

  // Create: a non-editable field is set on create; a default makes a required field optional.
  t.same(create.required, ['name', 'badge'], 'create requires what has no default, editable or not');
  t.ok('badge' in create.properties && 'note' in create.properties, 'non-editable fields are set on create');
  t.notOk(create.properties.badge.readOnly, 'and so not read-only there');
  t.equal(create.properties.kind.default, 'temp', 'the default applies on create');
  t.notOk('id' in create.properties, 'a body id is refused on create');
  t.equal((await send(url, 'POST', { name: 'Ada' })).status, 400, 'the server: badge is required');
  const created = await send(url, 'POST', { name: 'Ada', badge: 'B1' });
  t.equal(created.status, 201, 'the server: kind is not');
  const member = (await created.json()) as Record<string, unknown>;

  // Update: every editable required field, default or not; a retrieved member can be sent back.
  t.same(update.required, ['name', 'kind'], 'update requires editable required fields, defaults apply on create only');
  t.notOk('default' in update.properties.kind, 'no default on update');
  t.equal((await send(`${url}/${member.id}`, 'PUT', { name: 'Ada' })).status, 400, 'the server: kind is required on update');
  for (const key of Object.keys(member)) t.ok(key in update.properties, `a retrieved member's ${key} is accepted on update`);
  t.equal((await send(`${url}/${member.id}`, 'PUT', member)).status, 200, 'the server: a retrieved member sent back is fine');
  t.equal(update.additionalProperties, false);
  t.equal(create.additionalProperties, false);

  // A filter's parameter has no default: the server assumes none when it is absent.
  const kind = doc.paths['/resources/staff'].get.parameters.find((p: any) => p.name === 'kind');
  t.notOk('default' in kind.schema, 'the plain filter carries no default');
});

t.test('headers and problems as the server sends them', async (t) => {
  const server = await appServer(t, { models: { people: MODELS.people }, resources: { 'people.ts': 'svc.delegate();\n' } });
  const doc = (await (await fetch(server.at('/resources/openapi.json'))).json()) as any;
  const headers = doc.paths['/resources/people'].get.responses['200'].headers;
  t.notMatch(headers['X-Total-Count'].description, /paged/, 'every list carries X-Total-Count');
  t.notMatch(headers.Link.description, /last/, 'no last link');
  const member = doc.paths['/resources/people/{id}'];
  for (const m of ['put', 'delete']) t.ok(member[m].parameters.some((p: any) => p.name === 'If-None-Match'), `${m}: If-None-Match (412)`);
  for (const m of ['get', 'put', 'delete']) t.ok(member[m].responses['400'], `${m}: 400 for a bad query string`);
  t.equal((await fetch(server.at('/resources/people/1?format_as=xml'))).status, 400, 'the server: retrieve, bad format_as');
  t.equal((await send(server.at('/resources/people/1?name=%FF'), 'DELETE')).status, 400, 'the server: delete, escapes that are not UTF-8');
});
