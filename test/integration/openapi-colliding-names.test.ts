// Model names that the OpenAPI document used to fold together: a model named `Problem` replaced
// the problem schema every error response references, `good2` with `good2Input` replaced one
// model's input schema by another's, and `a-b` with `a_b` (or `Emp` with `emp`, or `Types` with
// the type metadata's `listTypes`, or delete on `collectionFoo` with deleteCollection on `foo`)
// gave two operations one operationId, which OpenAPI 3.1 forbids; and the way out of that must not
// land on another's readable form (delete on `collection__foo` reads `deleteCollection_foo`).

import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { appServer } from '../helpers/server.ts';

const NAMES = ['Problem', 'good2', 'good2Input', 'a-b', 'a_b', 'Emp', 'emp', 'Types', 'collection__foo', 'collectionFoo', 'people'];

t.test('every model keeps its own schemas and every operation its own operationId', async (t) => {
  const models: Record<string, unknown> = {};
  const resources: Record<string, string> = {};
  for (const [i, name] of NAMES.entries()) {
    // A field of its own in each model, so that one model's schema cannot pass for another's.
    models[name] = { fields: { [`f${i}`]: { type: 'string', required: true } } };
    resources[`${name}.ts`] = 'svc.delegate();\n';
  }
  // deleteCollection on `foo` reads like delete on `collectionFoo`.
  models.foo = { fields: {} };
  resources['foo.ts'] = 'export function onDeleteCollection() { svc.delegate(); }\n';
  const server = await appServer(t, { models, resources });
  const doc = (await (await fetch(server.at('/resources/openapi.json'))).json()) as any;
  const result = await new Validator().validate(doc);
  t.ok(result.valid, JSON.stringify(result.errors));

  const schemas = doc.components.schemas;
  const resolve = (ref: string) => schemas[ref.replace('#/components/schemas/', '')];
  // The problem schema an error response points at is still the problem, not the model `Problem`.
  const problem = resolve(doc.components.responses.Problem.content['application/problem+json'].schema.$ref);
  t.ok(problem.properties.code.enum.includes('invalid-member'), 'problem schema intact');
  for (const [i, name] of NAMES.entries()) {
    const paths = doc.paths[`/resources/${name}`];
    const member = resolve(paths.get.responses['200'].content['application/json'].schema.items.$ref);
    const create = resolve(paths.post.requestBody.content['application/json'].schema.$ref);
    const update = resolve(doc.paths[`/resources/${name}/{id}`].put.requestBody.content['application/json'].schema.$ref);
    t.same(Object.keys(member.properties), ['id', 'updated', `f${i}`], `${name}: its member schema`);
    t.ok(`f${i}` in create.properties, `${name}: its create schema`);
    t.ok(`f${i}` in update.properties, `${name}: its update schema`);
  }

  const ids: string[] = [];
  for (const item of Object.values(doc.paths) as any[]) {
    for (const op of Object.values(item) as any[]) if (op && typeof op === 'object' && 'operationId' in op) ids.push(op.operationId);
  }
  t.equal(ids.length, NAMES.length * 5 + 1 + 2, 'five operations per model, one of foo, two for type metadata');
  t.same(ids.filter((id, i) => ids.indexOf(id) !== i), [], 'no operationId twice');
  t.equal(doc.paths['/resources/types'].get.operationId, 'listTypes', 'fixed operationIds keep their name');
  t.equal(doc.paths['/resources/people'].get.operationId, 'listPeople', 'a name no other model shares stays readable');
});
