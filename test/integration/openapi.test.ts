// GET /resources/openapi.json: a valid OpenAPI 3.1 document of the app, with the operations its
// handlers serve (405s are not advertised), the query conditions each field type takes, paging
// headers, problems, JSON and Atom.

import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
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
  for (const n of ['name__contains', 'name__icontains', 'name__startswith', 'name__iexact', 'name__iendswith']) {
    t.same(list.parameters.find((p: any) => p.name === n).schema, { type: 'string', maxLength: 4000 }, `${n}: at most 4,000 characters, as the server takes`);
  }
  t.notOk(names.filter((n: string) => n === 'count').length > 1, 'a field named count is filtered with count__exact only');
  t.ok(list.responses['200'].headers['X-Total-Count'] && list.responses['200'].headers.Link, 'paging headers');
  t.ok(list.responses['200'].content['application/atom+xml'], 'Atom too');
  t.equal(list.responses['400'].$ref, '#/components/responses/Problem');
  t.same(doc.components.schemas['people.create'].required, ['name']);
  t.same(doc.components.schemas['people.update'].required, ['name']);
  t.equal(doc.components.schemas.people.properties.badge.readOnly, true);
  t.equal(doc.components.schemas['people.create'].properties.name.maxLength, 20);
  t.equal(doc.components.schemas['people.update'].properties.name.maxLength, 20);
  t.notOk('maxLength' in doc.components.schemas.people.properties.name, 'a served value may predate a lowered bound');
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

t.test('null in a create or update body: the schemas admit it exactly where the server takes it as absent', async (t) => {
  const server = await appServer(t, {
    models: {
      staff: {
        fields: {
          name: { type: 'string', required: true, max_length: 5 },
          badge: { type: 'string', editable: false, required: true },
          kind: { type: 'string', required: true, default_value: 'temp' },
          note: { type: 'string', editable: false },
          age: { type: 'integer' },
          score: { type: 'float' },
          vip: { type: 'boolean' },
          born: { type: 'date' },
          seen: { type: 'date-time' },
          text: { type: 'text' },
        },
      },
    },
    resources: { 'staff.ts': 'svc.delegate();\n' },
  });
  const doc = (await (await fetch(server.at('/resources/openapi.json'))).json()) as any;
  t.ok((await validate(doc)).valid, 'still a valid document');
  const schemas = doc.components.schemas;
  // The document's schemas are JSON Schema 2020-12 (OpenAPI 3.1): checked as such, formats aside.
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const url = server.at('/resources/staff');
  const body = { name: 'Ada', badge: 'B1', kind: 'k', note: 'n', age: 3, score: 1.5, vip: true, born: '2000-01-02', seen: '2024-05-01T10:00:00.000Z', text: 't' };

  const create = ajv.compile(schemas['staff.create']);
  t.ok(create(body), 'a full create body is admitted');
  const createNull: Record<string, boolean> = {};
  for (const key of Object.keys(schemas['staff.create'].properties)) {
    const status = (await send(url, 'POST', { ...body, [key]: null })).status;
    createNull[key] = create({ ...body, [key]: null });
    t.equal(createNull[key], status === 201, `create, ${key}: null: the schema ${createNull[key] ? 'admits' : 'refuses'} it, the server answers ${status}`);
  }
  t.same(createNull, { name: false, badge: false, kind: true, note: true, age: true, score: true, vip: true, born: true, seen: true, text: true, updated: true }, 'create: null wherever the field may be left out');

  const member = (await (await send(url, 'POST', body)).json()) as Record<string, unknown>;
  const update = ajv.compile(schemas['staff.update']);
  t.ok(update(member), 'a retrieved member is admitted on update');
  const updateNull: Record<string, boolean> = {};
  for (const key of Object.keys(schemas['staff.update'].properties)) {
    const status = (await send(`${url}/${member.id}`, 'PUT', { ...member, [key]: null })).status;
    updateNull[key] = update({ ...member, [key]: null });
    t.equal(updateNull[key], status === 200, `update, ${key}: null: the schema ${updateNull[key] ? 'admits' : 'refuses'} it, the server answers ${status}`);
  }
  t.same(
    updateNull,
    { id: false, updated: true, name: false, badge: true, kind: false, note: true, age: true, score: true, vip: true, born: true, seen: true, text: true },
    'update: null wherever the field may be left out (a non-editable one keeps its value)',
  );
  t.equal(schemas['staff.create'].properties.name.maxLength, 5, 'the other keywords stay');
  t.same(schemas['staff.create'].properties.age.type, ['integer', 'null'], 'spelled as OpenAPI 3.1 does');
  t.notOk(JSON.stringify(doc).includes('"nullable"'), 'not as 3.0 does');

  // A served member leaves absent fields out, so null is no value of it.
  for (const [key, schema] of Object.entries(schemas.staff.properties as Record<string, { type: unknown }>)) t.equal(typeof schema.type, 'string', `member ${key}: no null`);
  const served = (await (await fetch(`${url}/${member.id}`)).json()) as Record<string, unknown>;
  t.notOk(Object.values(served).includes(null), 'the server sends none');
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

  // Accept is negotiated for every request to a collection, a delete's too (its 204 has no body).
  for (const m of ['get', 'put', 'delete']) t.equal(member[m].responses['406']?.$ref, '#/components/responses/Problem', `${m}: 406`);
  const { id } = (await (await send(server.at('/resources/people'), 'POST', { name: 'Ada' })).json()) as { id: number };
  const refused = await send(server.at(`/resources/people/${id}`), 'DELETE', undefined, { accept: 'text/html' });
  t.equal(refused.status, 406, 'the server: delete, an Accept that admits neither JSON nor Atom');
  t.equal(((await refused.json()) as { code: string }).code, 'not-acceptable');
  t.equal((await fetch(server.at(`/resources/people/${id}`))).status, 200, 'and nothing was deleted');
});
