// Reading a model file: the JSON Schema of the model format (ajv), then the checks a schema cannot say.

import { Ajv, type ErrorObject } from 'ajv';
import { MAX_LISTED_ERRORS } from '../errors.ts';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { JsonTextError, readJson } from './json-text.ts';
import { DEFAULT_MAX_LENGTH, FIELD_OPTIONS, FIELD_TYPES, INDEX_PARTS, isDateType, type FieldDef, type IndexDef, type IndexKey, type IndexPart, type Model } from './types.ts';
import { splitSuffix } from './query.ts';
import { parseValue } from './values.ts';

/** Collection (and model) names: README "REST reference". `types` is taken by the type metadata endpoint. */
export const COLLECTION_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** Field names are identifiers without `__`, which separates a field from its query condition. */
export const FIELD_NAME = /^(?!.*__)[A-Za-z_][A-Za-z0-9_]*$/;

/** Compound indexes a model may declare, and keys in each (every index costs each write its upkeep). */
export const MAX_INDEXES = 8;
export const MAX_INDEX_KEYS = 4;
/**
 * Indexes MongoDB holds in one collection, `_id`'s included; it refuses to create one more
 * (https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-Number-of-Indexes-per-Collection).
 */
export const MONGODB_MAX_INDEXES = 64;
/**
 * Indexes every collection has besides its model's: the id's, `(updated, id)` and newest first
 * `(updated desc, id)`, as MongoDB counts them (the MongoDB store makes all three; SQLite's rowid
 * and its one index on `updated` are fewer, and count the same here, so both refuse one model).
 */
export const STORE_INDEXES = 3;
/**
 * Of MONGODB_MAX_INDEXES, those a model's own indexes leave free on purpose: the MongoDB store
 * keeps the index of a field removed from the model (an instance still on the previous model file
 * filters and orders by it) while there is room, so a rolling deploy that renames up to this many
 * indexed fields at once keeps every instance's indexes (mongodb-store.ts #makeRoom).
 */
export const REMOVED_FIELD_INDEX_ROOM = 16;
/**
 * Indexes one model asks for, at most: its indexed fields' own, its declared `indexes` and the
 * STORE_INDEXES (48). The same bound on both stores, so a model MongoDB could not hold is refused
 * everywhere at load (README "Models") instead of serving on SQLite and failing on MongoDB.
 */
export const MAX_MODEL_INDEXES = MONGODB_MAX_INDEXES - REMOVED_FIELD_INDEX_ROOM;
/**
 * Fields a model may declare. SQLite holds at most 2,000 columns in a table, and a field removed
 * from a model keeps its column (its values come back with it): this leaves room for as many.
 */
export const MAX_FIELDS = 1000;
/**
 * Bytes of a model file the server reads, 1 MiB: MAX_FIELDS fields with a label and a description
 * each fit. A model is read and checked on the event loop when its file changes, so a file of
 * gigabytes would stall every tenant; over the bound it is model-invalid, and is not read.
 */
export const MAX_MODEL_BYTES = 1024 * 1024;

const MODEL_SCHEMA = {
  type: 'object',
  required: ['fields'],
  additionalProperties: false,
  properties: {
    fields: {
      type: 'object',
      maxProperties: MAX_FIELDS,
      additionalProperties: { $ref: '#/$defs/field' },
    },
    indexes: {
      type: 'array',
      maxItems: MAX_INDEXES,
      items: { type: 'array', minItems: 1, maxItems: MAX_INDEX_KEYS, items: { type: 'string' } },
    },
    calculated_fields: { type: 'object', additionalProperties: { type: 'string' } },
    calculated_type_fields: { type: 'object', additionalProperties: { type: 'string' } },
  },
  $defs: {
    field: {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { enum: [...FIELD_TYPES] },
        required: { type: 'boolean' },
        max_length: { type: 'integer', minimum: 1 },
        editable: { type: 'boolean' },
        default_value: {},
        label: { type: 'string' },
        description: { type: 'string' },
        index: { type: 'boolean' },
      },
    },
  },
} as const;

const validateSchema = new Ajv({ allErrors: true, strict: true, verbose: true }).compile(MODEL_SCHEMA);

/** Extra checks other stages register (e.g. Atom templates naming unknown fields). */
export type ModelCheck = (model: Model) => string[];
const checks: ModelCheck[] = [];
export function registerModelCheck(check: ModelCheck): void {
  checks.push(check);
}

export type LoadResult = { ok: true; model: Model } | { ok: false; reason: string };

function schemaMessage(e: ErrorObject): string {
  const where = e.instancePath ? e.instancePath.slice(1).split('/').map(cut).join('.') : 'the model';
  if (e.keyword === 'additionalProperties') {
    const extra = cut((e.params as { additionalProperty: string }).additionalProperty);
    return e.instancePath.startsWith('/fields/')
      ? `${where}: unknown option "${extra}" (options: ${FIELD_OPTIONS.join(', ')})`
      : `${where}: unknown key "${extra}" (keys: fields, indexes, calculated_fields, calculated_type_fields)`;
  }
  if (e.keyword === 'enum') return `${where}: unknown type ${JSON.stringify(e.data)} (types: ${FIELD_TYPES.join(', ')})`;
  if (e.keyword === 'required') return `${where}: missing "${(e.params as { missingProperty: string }).missingProperty}"`;
  if (e.keyword === 'maxProperties' && e.instancePath === '/fields') return `fields: at most ${MAX_FIELDS} fields (SQLite's 2,000 columns a table, with room for the columns removed fields keep)`;
  return `${where}: ${e.message}`;
}

/** Builds a Model from the text of `file` (read when it was in state `fileKey`, file-stat.ts); never throws. */
export function loadModel(file: string, text: string, fileKey?: string): LoadResult {
  const name = basename(file, '.json');
  const reasons: string[] = [];
  if (!COLLECTION_NAME.test(name)) {
    return { ok: false, reason: `the name "${name}" must match [A-Za-z][A-Za-z0-9_-]*` };
  }
  if (name === 'types') return { ok: false, reason: 'the name "types" is reserved for type metadata' };
  let json: unknown;
  try {
    json = parseJsonFile(text);
  } catch (e) {
    return { ok: false, reason: jsonFault(e) };
  }
  if (!validateSchema(json)) {
    return { ok: false, reason: listed(validateSchema.errors!.map(schemaMessage)) };
  }
  const doc = json as {
    fields: Record<string, Record<string, unknown>>;
    indexes?: string[][];
    calculated_fields?: Record<string, string>;
    calculated_type_fields?: Record<string, string>;
  };

  const fields = new Map<string, FieldDef>();
  fields.set('id', { name: 'id', type: 'auto', required: false, editable: true, primaryKey: true });
  fields.set('updated', { name: 'updated', type: 'date-time', required: false, editable: true, primaryKey: false });
  const declared: FieldDef[] = [];
  for (const [fname, def] of Object.entries(doc.fields)) {
    if (fname === 'id' || fname === 'updated') {
      reasons.push(`fields.${fname}: "${fname}" is implicit in every model and cannot be declared`);
      continue;
    }
    if (!FIELD_NAME.test(fname)) {
      reasons.push(`fields.${cut(fname)}: field names must match [A-Za-z_][A-Za-z0-9_]* without "__"`);
      continue;
    }
    const type = def.type as FieldDef['type'];
    if (def.max_length !== undefined && type !== 'string') {
      reasons.push(`fields.${cut(fname)}: max_length applies only to string fields`);
    }
    const field: FieldDef = {
      name: fname,
      type,
      required: (def.required as boolean | undefined) ?? false,
      editable: (def.editable as boolean | undefined) ?? true,
      primaryKey: false,
      ...(type === 'string' ? { maxLength: (def.max_length as number | undefined) ?? DEFAULT_MAX_LENGTH } : {}),
      ...(def.label !== undefined ? { label: def.label as string } : {}),
      ...(def.description !== undefined ? { description: def.description as string } : {}),
      // Long free text is not indexed unless asked for (README "Models").
      ...((def.index ?? type !== 'text') === false ? { index: false as const } : {}),
    };
    // `null` is how a member says "absent" (README "The default handler"), so a null default is no
    // default: fine on an optional field, a contradiction on a required one, which a create without
    // the field would then fail on every time ("is required") while the model promises a value.
    if (def.default_value === null && field.required) {
      reasons.push(`fields.${cut(fname)}: "required": true and "default_value": null contradict each other (null means absent): give a default of type ${type}, or leave default_value out`);
    }
    if (def.default_value !== undefined && def.default_value !== null) {
      const parsed = parseValue(field, def.default_value, false);
      if (!parsed.ok) reasons.push(`fields.${cut(fname)}.default_value ${parsed.message}`);
      else (field as { defaultValue?: unknown }).defaultValue = parsed.value;
    }
    fields.set(fname, field);
    declared.push(field);
  }
  const indexes: IndexDef[] = [];
  (doc.indexes ?? []).forEach((keys, i) => {
    const parsed: IndexKey[] = [];
    keys.forEach((key, j) => {
      const k = indexKey(fields, key);
      if (typeof k === 'string') reasons.push(`indexes.${i}.${j}: ${k}`);
      else parsed.push(k);
    });
    if (parsed.length < keys.length) return; // its bad keys are named above
    const name = keys.join(',');
    if (new Set(keys).size < keys.length) reasons.push(`indexes.${i}: a key appears more than once`);
    else if (indexes.some((x) => x.name === name)) reasons.push(`indexes.${i}: the same index is declared twice`);
    else if (parsed.length === 1 && parsed[0]!.part === undefined && fields.get(parsed[0]!.field)?.index !== false) {
      reasons.push(`indexes.${i}: ${parsed[0]!.field} has an index of its own already (declare more keys, or "index": false on the field)`);
    } else indexes.push({ name, keys: parsed });
  });
  const indexCount = indexBound(declared, indexes);
  if (indexCount !== undefined) reasons.push(indexCount);
  const model: Model = {
    name,
    file,
    fields,
    declared,
    indexes,
    calculatedFields: doc.calculated_fields ?? {},
    calculatedTypeFields: doc.calculated_type_fields ?? {},
    version: createHash('sha256').update(text).digest('hex').slice(0, 8),
    ...(fileKey === undefined ? {} : { fileKey }),
  };
  for (const check of checks) reasons.push(...check(model));
  return reasons.length ? { ok: false, reason: listed(reasons) } : { ok: true, model };
}

/**
 * The reasons a model is invalid, the first MAX_LISTED_ERRORS of them and how many more: a file of
 * 1,000 fields each wrong three ways said so in 3 MB, in each answer and in the log.
 */
function listed(reasons: readonly string[]): string {
  const more = reasons.length - MAX_LISTED_ERRORS;
  return reasons.slice(0, MAX_LISTED_ERRORS).join('; ') + (more > 0 ? `; and ${more} more` : '');
}

/** A name from a model file for a reason, cut after 60 characters (a name may be kilobytes). */
function cut(name: string): string {
  return name.length > 60 ? `${name.slice(0, 60)}…` : name;
}

/**
 * Why the indexes a model asks for (its indexed fields' own, its declared ones and the store's) are
 * more than MAX_MODEL_INDEXES, or undefined when they are not.
 */
function indexBound(declared: readonly FieldDef[], indexes: readonly IndexDef[]): string | undefined {
  const fields = declared.filter((f) => f.index !== false).length;
  const total = fields + indexes.length + STORE_INDEXES;
  if (total <= MAX_MODEL_INDEXES) return undefined;
  const over = total - MAX_MODEL_INDEXES;
  const declaredPart = indexes.length === 0 ? '' : ` + ${indexes.length} declared under "indexes"`;
  return (
    `too many indexes: ${fields} indexed field${fields === 1 ? '' : 's'}${declaredPart} + the store's own ${STORE_INDEXES} (id, updated, newest first) = ${total}, ` +
    `at most ${MAX_MODEL_INDEXES} (MongoDB holds ${MONGODB_MAX_INDEXES} indexes a collection, ${REMOVED_FIELD_INDEX_ROOM} of them kept for the indexes of fields removed from the model): ` +
    `declare "index": false on ${over} field${over === 1 ? '' : 's'} that no list filters or orders by${indexes.length === 0 ? '' : ', or declare fewer indexes'}`
  );
}

/** One key of an `indexes` entry: a declared field, or `<field>__month` / `<field>__day` of a date field; else what is wrong. */
function indexKey(fields: ReadonlyMap<string, FieldDef>, key: string): IndexKey | string {
  const shown = quoted(key);
  const { field, suffix: part } = splitSuffix(key);
  if (field === 'id' || field === 'updated') return `${field} cannot be a key (id ends every index; updated has its own)`;
  const parts = `(parts: ${INDEX_PARTS.map((p) => `__${p}`).join(', ')})`;
  // A field name has no `__` of its own: `born__day__x` is a part too many, `__proto__` no field.
  const nested = field.indexOf('__');
  if (nested !== -1 && fields.has(field.slice(0, nested))) return `${shown} is not a field or a part of one ${parts}`;
  const noField = field === '' || nested !== -1;
  const def = noField ? undefined : fields.get(field);
  if (def === undefined) {
    const declared = [...fields.keys()].filter((f) => f !== 'id' && f !== 'updated');
    const what = noField ? `${shown} names no field` : `unknown field ${quoted(field)}`;
    return `${what} (a key is a declared field, or a date field's <field>__month or <field>__day; declared fields: ${declared.join(', ') || 'none'})`;
  }
  if (part === undefined) return { field };
  if (!(INDEX_PARTS as readonly string[]).includes(part)) return `${shown} is not a field or a part of one ${parts}`;
  if (!isDateType(def.type)) return `__${part} is a part of date and date-time values; ${field} is ${def.type}`;
  return { field, part: part as IndexPart };
}

/** `text` as a JSON string for an error, cut after 60 characters (a model file may hold anything). */
function quoted(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/**
 * Deepest nesting of arrays and objects in a model file or svc.json, the file's object being level
 * 1. Neither needs more than 3 (`fields.<name>.<option>`); a bound keeps the reading's recursion short.
 */
const MAX_FILE_DEPTH = 100;

/**
 * A JSON file's text parsed (a byte order mark before it ignored: editors write one). A name given
 * twice in one object is refused, at any depth: JSON.parse would keep the last and drop the other
 * declaration without a word. Throws JsonTextError.
 */
export function parseJsonFile(text: string): unknown {
  return readJson(text, { maxDepth: MAX_FILE_DEPTH, uniqueNames: 'everywhere' });
}

/**
 * Why a model file's text is not a model's JSON (a JsonTextError from parseJsonFile), saying where
 * and never quoting what is there (a model may not be what it seems). A path is written as the
 * schema's messages write one: `fields.name`, or `the model`.
 */
function jsonFault(e: unknown): string {
  const fault = e instanceof JsonTextError ? e.fault : undefined;
  if (fault?.kind === 'depth') return `nested deeper than ${fault.max} levels`;
  if (fault?.kind === 'repeated-name') {
    const where = fault.path.length === 0 ? 'the model' : fault.path.map((k) => (typeof k === 'string' && k.length > 60 ? `${k.slice(0, 60)}…` : k)).join('.');
    const key = fault.name === undefined ? 'a key' : `the key ${quoted(fault.name)}`;
    return `${where}: ${key} appears more than once${fault.at === undefined ? '' : ` (at character ${fault.at})`}: write each key once`;
  }
  return `not valid JSON${fault?.kind === 'syntax' && fault.at !== undefined ? ` (at character ${fault.at})` : ''}`;
}
