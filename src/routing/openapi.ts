// GET /resources/openapi.json: the URL convention of an app described in OpenAPI 3.1, generated
// from its models and the events its handlers serve (README "OpenAPI"). A pure function: models and events in,
// a document out.

import { CATALOGUE, SvcError, type ErrorCode } from '../errors.ts';
import { JsonParts, MAX_DOCUMENT_BYTES, Slices } from '../model/documents.ts';
import { CONDITIONS_BY_TYPE, MAX_SORT_KEYS, MAX_TEXT_CONDITION_CHARS, RESERVED_PARAMS } from '../model/query.ts';
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

/**
 * Component names. A model name matches [A-Za-z][A-Za-z0-9_-]* and never holds a dot, so the
 * member schema keeps the bare model name and every other name has one: `<model>.create` and
 * `<model>.update` belong to that model alone, and `svc.Problem` to no model (a model named
 * `Problem`, or `good2` beside `good2Input`, used to overwrite another entry).
 */
const PROBLEM_SCHEMA = 'svc.Problem';
const schemaName = (model: string, kind: '' | 'create' | 'update') => (kind === '' ? model : `${model}.${kind}`);

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

/**
 * The schema of a body's field the server takes as absent when it is null (validate.ts `isAbsent`):
 * one that may be left out. OpenAPI 3.1 (JSON Schema 2020-12) says so in `type`; `nullable` is 3.0's.
 */
function orNull(schema: Json): Json {
  return { ...schema, type: [schema.type, 'null'] };
}

/** `updated` in a body: the server sets it, and ignores whatever is sent (validate.ts `checkKeys`). */
const IGNORED_UPDATED = { description: 'Ignored: the server sets it on every write.' };

/**
 * A member as served, and the bodies of create and update as src/model/validate.ts checks them
 * (README "The default handler"). Create takes every declared field, editable or not, with its
 * default; `id` is refused. Update replaces the editable fields, so a required one is required
 * even with a default (defaults apply on create only); a non-editable field may be repeated with
 * its current value and `id` with the URL's, so a retrieved member can be sent back. In both, a
 * field that may be left out may be null (absent); a served member leaves absent fields out, so
 * its schema has no null.
 */
function memberSchemas(model: Model): { member: Json; create: Json; update: Json } {
  // A served value is not bound by max_length: one stored before the bound was lowered (or the
  // field became a string) is served as it is. The bound is a rule of the bodies, below.
  const properties: Json = {};
  for (const { maxLength: _bound, ...f } of model.fields.values()) properties[f.name] = fieldSchema(f);
  const declared = model.declared;
  const keep = 'is not editable; leave it out or send its current value';
  const requiredOnCreate = (f: FieldDef) => f.required && f.defaultValue === undefined;
  // A non-editable field keeps its value whatever the body says of it, null included.
  const requiredOnUpdate = (f: FieldDef) => f.editable && f.required;
  return {
    member: { type: 'object', properties, required: ['id', 'updated'] },
    create: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ...Object.fromEntries(
          declared.map((f) => {
            const schema = fieldSchema({ ...f, editable: true });
            return [f.name, requiredOnCreate(f) ? schema : orNull(schema)];
          }),
        ),
        updated: IGNORED_UPDATED,
      },
      required: declared.filter(requiredOnCreate).map((f) => f.name),
    },
    update: {
      type: 'object',
      additionalProperties: false,
      properties: {
        id: { ...fieldSchema({ ...model.fields.get('id')!, editable: true }), description: 'Must equal the id in the URL, or be left out.' },
        updated: IGNORED_UPDATED,
        ...Object.fromEntries(
          declared.map((f) => {
            const typed = fieldSchema({ ...f, editable: true, defaultValue: undefined });
            const schema = requiredOnUpdate(f) ? typed : orNull(typed);
            // Not readOnly: OpenAPI says a readOnly property SHOULD NOT be sent, and sending the current value is fine.
            return [f.name, f.editable ? schema : { ...schema, description: [f.description, `${f.name} ${keep}.`].filter(Boolean).join(' ') }];
          }),
        ),
      },
      required: declared.filter(requiredOnUpdate).map((f) => f.name),
    },
  };
}

/** The query parameters of a list: a filter per field and condition that fits its type, paging and order. */
function listParameters(model: Model): Json[] {
  const params: Json[] = [
    { name: 'start', in: 'query', description: 'Index of the first member of the page (0-based); makes the list paged (Link).', schema: { type: 'integer', minimum: 0 } },
    { name: 'count', in: 'query', description: 'At most this many members; makes the list paged (Link).', schema: { type: 'integer', minimum: 0 } },
    {
      name: 'order_by',
      in: 'query',
      description: `Comma-separated field names, \`-\` for descending; ties are broken by id. At most ${MAX_SORT_KEYS - 1} fields before id.`,
      schema: { type: 'string' },
    },
    { name: 'format_as', in: 'query', description: 'Representation, instead of Accept.', schema: { type: 'string', enum: ['json', 'atom'] } },
  ];
  for (const f of model.fields.values()) {
    // No default: a parameter's default is what the server assumes when it is absent, and a list
    // without the filter is unfiltered. No label or description either: the member schema has them
    // once, where a copy in each of a field's ~17 parameters made a model of long labels (1 MiB)
    // a 12 MB document.
    const value = fieldSchema({ name: f.name, type: f.type, required: false, editable: true, primaryKey: false, ...(f.maxLength !== undefined ? { maxLength: f.maxLength } : {}) });
    // A field named like a reserved parameter is filtered as <field>__exact only.
    if (!(RESERVED_PARAMS as readonly string[]).includes(f.name)) {
      params.push({ name: f.name, in: 'query', description: `${f.name} equals`, schema: value });
    }
    for (const c of CONDITIONS_BY_TYPE[f.type]) {
      const schema =
        c === 'isnull' ? { type: 'boolean' }
        : c === 'in' ? { type: 'string', description: 'comma-separated values' }
        : c === 'range' ? { type: 'string', description: 'two comma-separated values, low and high' }
        : c === 'year' || c === 'month' || c === 'day' ? { type: 'integer' }
        : c.startsWith('i') || c.includes('contains') || c.endsWith('with') ? { type: 'string', maxLength: MAX_TEXT_CONDITION_CHARS }
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
const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  description: 'Write only if the member still has this ETag, of its JSON or its Atom (strong comparison), else 412.',
  schema: { type: 'string' },
};
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  description: 'Answer 304 when the member still has this ETag in the representation asked for (weak comparison).',
  schema: { type: 'string' },
};
const IF_NONE_MATCH_WRITE = {
  name: 'If-None-Match',
  in: 'header',
  description: 'Write only if the member no longer has this ETag, of its JSON or its Atom (weak comparison; `*`: no member may exist), else 412.',
  schema: { type: 'string' },
};
const ETAG = { description: 'Entity tag of the member in this representation: its JSON and its Atom have different ones.', schema: { type: 'string' } };

/** The readable operationId of an event on a model: `listEmployees` for list on `employees`, `createAB` on `a-b`. */
function readableOperationId(event: EventName, model: string): string {
  return `${event}${model[0]!.toUpperCase()}${model.slice(1).replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase())}`;
}

/** operationIds of the fixed paths (type metadata), which no model's may take. */
const LIST_TYPES = 'listTypes';
const GET_TYPE = 'getType';
const FIXED_OPERATION_IDS = [LIST_TYPES, GET_TYPE];

/**
 * operationIds, unique as OpenAPI 3.1 requires: the readable form where no other operation has
 * it, else `<event>.<model>` for every operation that shares it (`list.Emp`, `list.emp`), whatever
 * the order of the models. That form is unique: it holds the exact model name, and no event,
 * model name or readable form holds a dot (`_<model>` would not do: `delete` on `collection__foo`
 * reads `deleteCollection_foo`).
 */
function operationIds(collections: readonly OpenApiCollection[]): (event: EventName, model: string) => string {
  const uses = new Map<string, number>(FIXED_OPERATION_IDS.map((id) => [id, 1]));
  for (const { model, events } of collections) {
    for (const event of events) {
      const id = readableOperationId(event, model.name);
      uses.set(id, (uses.get(id) ?? 0) + 1);
    }
  }
  return (event, model) => {
    const readable = readableOperationId(event, model);
    return uses.get(readable) === 1 ? readable : `${event}.${model}`;
  };
}

function operations(model: Model, events: readonly EventName[], operationId: (event: EventName, model: string) => string): { collection: Json; member: Json } {
  const ref = (kind: '' | 'create' | 'update') => ({ $ref: `#/components/schemas/${schemaName(model.name, kind)}` });
  const collection: Json = {};
  const member: Json = {};
  const problems = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [String(s), PROBLEM]));
  for (const event of events) {
    const method = EVENT_METHOD[event].toLowerCase();
    const base = { operationId: operationId(event, model.name), tags: [model.name] };
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
                'X-Total-Count': { description: 'Members matching the filters; every list carries it.', schema: { type: 'integer' } },
                Link: { description: 'Paged lists only (start or count given): first, and next and prev where they exist (RFC 8288).', schema: { type: 'string' } },
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
          requestBody: { required: true, content: content(ref('create'), true) },
          responses: {
            201: { description: 'Created.', headers: { Location: { description: 'URL of the new member.', schema: { type: 'string', format: 'uri' } }, ETag: ETAG }, content: content(ref(''), true) },
            ...problems(400, 406, 413, 415, 507),
            ...errors,
          },
        };
        break;
      case 'retrieve':
        target[method] = {
          ...base,
          summary: `Retrieve a member of ${model.name}`,
          parameters: [IF_NONE_MATCH],
          responses: { 200: { description: 'The member.', headers: { ETag: ETAG }, content: content(ref(''), true) }, 304: { description: 'Not modified.' }, ...problems(400, 404, 406), ...errors },
        };
        break;
      case 'update':
        target[method] = {
          ...base,
          summary: `Replace the editable fields of a member of ${model.name}`,
          parameters: [IF_MATCH, IF_NONE_MATCH_WRITE],
          requestBody: { required: true, content: content(ref('update'), true) },
          responses: { 200: { description: 'The updated member.', headers: { ETag: ETAG }, content: content(ref(''), true) }, ...problems(400, 404, 406, 412, 413, 415, 507), ...errors },
        };
        break;
      case 'delete':
        target[method] = {
          ...base,
          summary: `Delete a member of ${model.name}`,
          parameters: [IF_MATCH, IF_NONE_MATCH_WRITE],
          // 406 too: Accept is negotiated for every request to a collection (server.ts), a delete's
          // included, though its 204 has no body. 507 (store-full): a delete is a write too.
          responses: { 204: { description: 'Deleted.' }, ...problems(400, 404, 406, 412, 507), ...errors },
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

/** The `paths` entries of one collection and its `components.schemas` entries, in document order. */
function collectionEntries({ model, events }: OpenApiCollection, operationId: (event: EventName, model: string) => string): { paths: [string, Json][]; schemas: [string, Json][] } {
  const { member, create, update } = memberSchemas(model);
  const ops = operations(model, events, operationId);
  const paths: [string, Json][] = [];
  if (Object.keys(ops.collection).length > 0) paths.push([`/resources/${model.name}`, ops.collection]);
  if (Object.keys(ops.member).length > 0) paths.push([`/resources/${model.name}/{id}`, { parameters: [ID], ...ops.member }]);
  return {
    paths,
    schemas: [
      [schemaName(model.name, ''), member],
      [schemaName(model.name, 'create'), create],
      [schemaName(model.name, 'update'), update],
    ],
  };
}

const PROBLEM_SCHEMA_DEF: Json = {
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
};

/** The paths of type metadata, after every collection's. */
const TYPES_PATHS: Json = {
  '/resources/types': {
    get: { operationId: LIST_TYPES, summary: 'Type metadata of every model', responses: { 200: { description: 'Type metadata.', content: { [JSON_TYPE]: { schema: { type: 'array', items: { type: 'object' } } } } } } },
  },
  '/resources/types/{name}': {
    get: {
      operationId: GET_TYPE,
      summary: 'Type metadata of one model',
      parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { 200: { description: 'Type metadata.', content: { [JSON_TYPE]: { schema: { type: 'object' } } } }, 404: PROBLEM },
    },
  },
};

const RESPONSES: Json = {
  Problem: { description: 'A problem (README "Errors").', content: { 'application/problem+json': { schema: { $ref: `#/components/schemas/${PROBLEM_SCHEMA}` } } } },
};

/** What comes before `paths`. */
function head(input: OpenApiInput): Json {
  return {
    openapi: '3.1.0',
    info: { title: input.app === '' ? 'svc app' : `svc app ${input.app}`, version: input.version ?? '1' },
    servers: [{ url: input.origin }],
  };
}

const byName = (collections: readonly OpenApiCollection[]) => [...collections].sort((a, b) => a.model.name.localeCompare(b.model.name));

/** The OpenAPI 3.1 document of an app. */
export function openApiDocument(input: OpenApiInput): Json {
  const paths: Json = {};
  const schemas: Json = { [PROBLEM_SCHEMA]: PROBLEM_SCHEMA_DEF };
  const operationId = operationIds(input.collections);
  for (const collection of byName(input.collections)) {
    const entries = collectionEntries(collection, operationId);
    for (const [key, value] of entries.paths) paths[key] = value;
    for (const [key, value] of entries.schemas) schemas[key] = value;
  }
  Object.assign(paths, TYPES_PATHS);
  return { ...head(input), paths, components: { schemas, responses: RESPONSES } };
}

/**
 * openApiDocument(input) as the bytes of its JSON.stringify, built a collection at a time in slices
 * (model/documents.ts), so that an app of many models does not hold the event loop, and every other
 * request, while its document is built. Throws SvcError `models-over-limit`, having built no more,
 * once the document is over MAX_DOCUMENT_BYTES.
 */
export async function openApiJson(input: OpenApiInput): Promise<Buffer> {
  const entry = ([key, value]: [string, Json]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`;
  const paths = new JsonParts(tooLarge);
  const schemas = new JsonParts(tooLarge);
  const operationId = operationIds(input.collections);
  const slices = new Slices();
  let first = true;
  for (const collection of byName(input.collections)) {
    const entries = collectionEntries(collection, operationId);
    for (const part of entries.paths) {
      paths.add(`${first ? '' : ','}${entry(part)}`);
      first = false;
    }
    for (const part of entries.schemas) schemas.add(`,${entry(part)}`);
    await slices.pause();
  }
  const json = new JsonParts(tooLarge);
  json.add(`${JSON.stringify(head(input)).slice(0, -1)},"paths":{`);
  json.add(paths);
  json.add(`${first ? '' : ','}${JSON.stringify(TYPES_PATHS).slice(1, -1)}},"components":{"schemas":{${entry([PROBLEM_SCHEMA, PROBLEM_SCHEMA_DEF])}`);
  json.add(schemas);
  json.add(`},"responses":${JSON.stringify(RESPONSES)}}}`);
  return json.bytes();
}

function tooLarge(): never {
  throw new SvcError(
    'models-over-limit',
    `The OpenAPI document of this app is over ${MAX_DOCUMENT_BYTES} bytes (16 MiB), the most the server builds: serve fewer collections (a model without a handler is left out), or declare fewer fields, or shorter labels and descriptions.`,
  );
}
