// GET /resources/openapi.json: the URL convention of an app described in OpenAPI 3.1, generated
// from its models and the events its handlers serve (README "OpenAPI"). A pure function: models and events in,
// a document out.

import { CATALOGUE, type ErrorCode } from '../errors.ts';
import { CONDITIONS_BY_TYPE, RESERVED_PARAMS } from '../model/query.ts';
import type { FieldDef, FieldType, Model } from '../model/types.ts';
import { EVENT_METHOD, isMemberEvent, type EventName } from './events.ts';

export interface OpenApiCollection {
  readonly model: Model;
  /** The events the collection's handler serves; the others (405) are left out. */
  readonly events: readonly EventName[];
}

export interface OpenApiInput {
  /** The app's name, for the title ('' in single-app mode). */
  readonly app: string;
  /** The origin requests go to (`http://host:port`, or the public URL). */
  readonly origin: string;
  readonly collections: readonly OpenApiCollection[];
  readonly version?: string;
}

type Json = Record<string, unknown>;

const JSON_TYPE = 'application/json';
const ATOM_TYPE = 'application/atom+xml';
const PROBLEM = { $ref: '#/components/responses/Problem' };

/** The JSON Schema of a field's value in a member. */
function fieldSchema(f: FieldDef): Json {
  const base: Json = (() => {
    switch (f.type as FieldType) {
      case 'auto':
        return { type: 'integer', minimum: 1 };
      case 'string':
        return { type: 'string', ...(f.maxLength !== undefined ? { maxLength: f.maxLength } : {}) };
      case 'text':
        return { type: 'string' };
      case 'integer':
        return { type: 'integer' };
      case 'float':
        return { type: 'number' };
      case 'boolean':
        return { type: 'boolean' };
      case 'date':
        return { type: 'string', format: 'date' };
      case 'date-time':
        return { type: 'string', format: 'date-time' };
    }
  })();
  return {
    ...base,
    ...(f.label !== undefined ? { title: f.label } : {}),
    ...(f.description !== undefined ? { description: f.description } : {}),
    ...(f.defaultValue !== undefined && f.defaultValue !== null ? { default: f.defaultValue } : {}),
    ...(f.editable ? {} : { readOnly: true }),
  };
}

/** A member as served, and as sent (editable fields only; `required` ones required). */
function memberSchemas(model: Model): { member: Json; input: Json } {
  const properties: Json = {};
  for (const f of model.fields.values()) properties[f.name] = fieldSchema(f);
  const editable = model.declared.filter((f) => f.editable);
  return {
    member: { type: 'object', properties, required: ['id', 'updated'] },
    input: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(editable.map((f) => [f.name, fieldSchema(f)])),
      required: editable.filter((f) => f.required && f.defaultValue === undefined).map((f) => f.name),
    },
  };
}

/** The query parameters of a list: a filter per field and condition that fits its type, paging and order. */
function listParameters(model: Model): Json[] {
  const params: Json[] = [
    { name: 'start', in: 'query', description: 'Index of the first member of the page (0-based).', schema: { type: 'integer', minimum: 0 } },
    { name: 'count', in: 'query', description: 'Members in the page; with start, makes the response paged (Link, X-Total-Count).', schema: { type: 'integer', minimum: 0 } },
    {
      name: 'order_by',
      in: 'query',
      description: 'Comma-separated field names, `-` for descending; ties are broken by id.',
      schema: { type: 'string' },
    },
    { name: 'format_as', in: 'query', description: 'Representation, instead of Accept.', schema: { type: 'string', enum: ['json', 'atom'] } },
  ];
  for (const f of model.fields.values()) {
    // A field named like a reserved parameter is filtered as <field>__exact only.
    if (!(RESERVED_PARAMS as readonly string[]).includes(f.name)) params.push({ name: f.name, in: 'query', description: `${f.name} equals`, schema: fieldSchema({ ...f, editable: true }) });
    for (const c of CONDITIONS_BY_TYPE[f.type]) {
      const value = fieldSchema({ ...f, editable: true, defaultValue: undefined });
      const schema =
        c === 'isnull' ? { type: 'boolean' }
        : c === 'in' ? { type: 'string', description: 'comma-separated values' }
        : c === 'range' ? { type: 'string', description: 'two comma-separated values, low and high' }
        : c === 'year' || c === 'month' || c === 'day' ? { type: 'integer' }
        : c.startsWith('i') || c.includes('contains') || c.endsWith('with') ? { type: 'string' }
        : value;
      params.push({ name: `${f.name}__${c}`, in: 'query', schema });
    }
  }
  return params;
}

function content(schema: Json, atom: boolean): Json {
  return { [JSON_TYPE]: { schema }, ...(atom ? { [ATOM_TYPE]: { schema: { type: 'string', description: 'An Atom entry or feed (RFC 4287).' } } } : {}) };
}

const ID = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
const IF_MATCH = { name: 'If-Match', in: 'header', description: 'Write only if the member still has this ETag (else 412).', schema: { type: 'string' } };
const IF_NONE_MATCH = { name: 'If-None-Match', in: 'header', description: 'Answer 304 when the member still has this ETag.', schema: { type: 'string' } };
const ETAG = { description: 'Entity tag of the member.', schema: { type: 'string' } };

function operations(model: Model, events: readonly EventName[]): { collection: Json; member: Json } {
  const ref = (s: string) => ({ $ref: `#/components/schemas/${model.name}${s}` });
  const collection: Json = {};
  const member: Json = {};
  const problems = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [String(s), PROBLEM]));
  for (const event of events) {
    const method = EVENT_METHOD[event].toLowerCase();
    const base = { operationId: `${event}${model.name[0]!.toUpperCase()}${model.name.slice(1).replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase())}`, tags: [model.name] };
    const errors = problems(500, 503);
    const target = isMemberEvent(event) ? member : collection;
    switch (event) {
      case 'list':
        target[method] = {
          ...base,
          summary: `List ${model.name}`,
          parameters: listParameters(model),
          responses: {
            200: {
              description: 'The members, filtered, ordered and paged.',
              headers: {
                'X-Total-Count': { description: 'Members matching the filters (paged lists).', schema: { type: 'integer' } },
                Link: { description: 'first, prev, next and last pages (RFC 8288; paged lists).', schema: { type: 'string' } },
              },
              content: content({ type: 'array', items: ref('') }, true),
            },
            ...problems(400, 406),
            ...errors,
          },
        };
        break;
      case 'create':
        target[method] = {
          ...base,
          summary: `Create a member of ${model.name}`,
          requestBody: { required: true, content: content(ref('Input'), true) },
          responses: {
            201: { description: 'Created.', headers: { Location: { description: 'URL of the new member.', schema: { type: 'string', format: 'uri' } }, ETag: ETAG }, content: content(ref(''), true) },
            ...problems(400, 406, 413, 415),
            ...errors,
          },
        };
        break;
      case 'retrieve':
        target[method] = {
          ...base,
          summary: `Retrieve a member of ${model.name}`,
          parameters: [IF_NONE_MATCH],
          responses: { 200: { description: 'The member.', headers: { ETag: ETAG }, content: content(ref(''), true) }, 304: { description: 'Not modified.' }, ...problems(404, 406), ...errors },
        };
        break;
      case 'update':
        target[method] = {
          ...base,
          summary: `Replace the editable fields of a member of ${model.name}`,
          parameters: [IF_MATCH],
          requestBody: { required: true, content: content(ref('Input'), true) },
          responses: { 200: { description: 'The updated member.', headers: { ETag: ETAG }, content: content(ref(''), true) }, ...problems(400, 404, 406, 412, 413, 415), ...errors },
        };
        break;
      case 'delete':
        target[method] = {
          ...base,
          summary: `Delete a member of ${model.name}`,
          parameters: [IF_MATCH],
          responses: { 204: { description: 'Deleted.' }, ...problems(404, 412), ...errors },
        };
        break;
      default:
        // putCollection, deleteCollection, postMember: the handler's own; what they answer is its business.
        target[method] = {
          ...base,
          summary: `${event} (served by the handler)`,
          ...(method === 'post' || method === 'put' ? { requestBody: { content: { [JSON_TYPE]: { schema: {} } } } } : {}),
          responses: { default: { description: 'What the handler answers.' }, ...errors },
        };
    }
  }
  return { collection, member };
}

/** The OpenAPI 3.1 document of an app. */
export function openApiDocument(input: OpenApiInput): Json {
  const paths: Json = {};
  const schemas: Json = {
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details; `code` is stable (README "Errors").',
      properties: {
        type: { type: 'string' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        code: { type: 'string', enum: Object.keys(CATALOGUE) as ErrorCode[] },
        requestId: { type: 'string' },
        errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, parameter: { type: 'string' }, message: { type: 'string' } }, required: ['message'] } },
      },
      required: ['type', 'title', 'status', 'detail', 'code'],
    },
  };
  for (const { model, events } of [...input.collections].sort((a, b) => a.model.name.localeCompare(b.model.name))) {
    const { member, input: body } = memberSchemas(model);
    schemas[model.name] = member;
    schemas[`${model.name}Input`] = body;
    const ops = operations(model, events);
    if (Object.keys(ops.collection).length > 0) paths[`/resources/${model.name}`] = ops.collection;
    if (Object.keys(ops.member).length > 0) paths[`/resources/${model.name}/{id}`] = { parameters: [ID], ...ops.member };
  }
  paths['/resources/types'] = {
    get: { operationId: 'listTypes', summary: 'Type metadata of every model', responses: { 200: { description: 'Type metadata.', content: { [JSON_TYPE]: { schema: { type: 'array', items: { type: 'object' } } } } } } },
  };
  paths['/resources/types/{name}'] = {
    get: {
      operationId: 'getType',
      summary: 'Type metadata of one model',
      parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { 200: { description: 'Type metadata.', content: { [JSON_TYPE]: { schema: { type: 'object' } } } }, 404: PROBLEM },
    },
  };
  return {
    openapi: '3.1.0',
    info: { title: input.app === '' ? 'svc app' : `svc app ${input.app}`, version: input.version ?? '1' },
    servers: [{ url: input.origin }],
    paths,
    components: {
      schemas,
      responses: {
        Problem: { description: 'A problem (README "Errors").', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      },
    },
  };
}
