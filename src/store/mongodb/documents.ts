// Members ↔ MongoDB documents: which document key holds each field, and values in their canonical forms.

import { INDEX_PARTS, type FieldType, type IndexPart, type Member, type MemberData, type Model, type Value } from '../../model/types.ts';
import { ownValue, storedAs } from '../../model/values.ts';

/**
 * A stored member: `_id` is the member id, `updated` its stamp, then one key per present
 * declared field (absent fields have no key, never null), and the date parts the model's indexes
 * name (`StoredPart`). Dates stay canonical strings, so they order and compare exactly as in SQLite.
 */
export type MemberDocument = { _id: number; updated: string; [key: string]: Value };

/** Document keys are identifiers: never an operator (`$…`) or a path (`a.b`). */
const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The document key of a field of `model`. Field names are identifiers without `__` (src/model/load.ts),
 * so a declared name that starts with `_` gets one more: `_id` → `__id` can collide neither with
 * MongoDB's `_id` nor with another field. Throws for a field the model does not have: keys come
 * from the model, never from a request.
 */
export function fieldKey(model: Model, field: string): string {
  const key = keysOf(model).get(field);
  if (key === undefined) throw new Error(`model ${model.name} has no field ${JSON.stringify(field)}`);
  return key;
}

/** Model objects are immutable (a changed file makes a new one), so their keys are worked out once. */
const keys = new WeakMap<Model, ReadonlyMap<string, string>>();

function keysOf(model: Model): ReadonlyMap<string, string> {
  let map = keys.get(model);
  if (map === undefined) {
    const m = new Map<string, string>();
    for (const field of model.fields.keys()) {
      const key = field === 'id' ? '_id' : field.startsWith('_') ? `_${field}` : field;
      if (!KEY.test(key)) throw new Error(`field name ${JSON.stringify(field)} of model ${model.name} cannot be a document key`);
      m.set(field, key);
    }
    map = m;
    keys.set(model, map);
  }
  return map;
}

/**
 * The document key of a part of the field whose document key is `key`: `born__day`. Field names
 * hold no `__` (src/model/load.ts), so no field's key holds one past its first character.
 */
export function partKey(key: string, part: IndexPart): string {
  return `${key}__${part}`;
}

/** Where a part starts in a date's canonical text (0-based code points): `YYYY-MM-DD…`. */
export const PART_START: Record<IndexPart, number> = { month: 5, day: 8 };

/**
 * A part of a date field that documents store beside the field, so that an index can hold it
 * (MongoDB indexes values, not parts of them): one the model's declared indexes name.
 */
export interface StoredPart {
  readonly field: string;
  readonly part: IndexPart;
  /** Its document key (`partKey`). */
  readonly key: string;
}

interface Parts {
  readonly stored: readonly StoredPart[];
  /** Keys of the parts a text field might hold from an earlier model and this one does not store. */
  readonly cleared: readonly string[];
}

const parts = new WeakMap<Model, Parts>();

function partsOf(model: Model): Parts {
  let p = parts.get(model);
  if (p === undefined) {
    const stored = new Map<string, StoredPart>();
    for (const index of model.indexes) {
      for (const { field, part } of index.keys) {
        if (part === undefined) continue;
        const key = partKey(fieldKey(model, field), part);
        stored.set(key, { field, part, key });
      }
    }
    const cleared = model.declared
      .filter((f) => BSON_TYPE[f.type] === 'string')
      .flatMap((f) => INDEX_PARTS.map((part) => partKey(fieldKey(model, f.name), part)))
      .filter((key) => !stored.has(key));
    p = { stored: [...stored.values()], cleared };
    parts.set(model, p);
  }
  return p;
}

/**
 * The parts a write under `model` stores and clears when the collection was prepared for `of`, a
 * model of the same name whose fields hold the same types (mongodb-store.ts, a request whose model
 * file changed since): `of`'s parts of the fields `model` declares, which `of`'s indexes and
 * filters read. A field `model` does not declare is left alone, its parts with it.
 */
function partsFor(model: Model, of: Model): Parts {
  if (of === model) return partsOf(model);
  let byOf = pairs.get(model);
  if (byOf === undefined) pairs.set(model, (byOf = new WeakMap()));
  let p = byOf.get(of);
  if (p === undefined) {
    const declared = new Set(model.declared.map((f) => f.name));
    const stored = partsOf(of).stored.filter((s) => declared.has(s.field));
    const keys = new Set(stored.map((s) => s.key));
    const cleared = model.declared
      .filter((f) => BSON_TYPE[f.type] === 'string')
      .flatMap((f) => INDEX_PARTS.map((part) => partKey(fieldKey(model, f.name), part)))
      .filter((key) => !keys.has(key));
    p = { stored, cleared };
    byOf.set(of, p);
  }
  return p;
}

/** partsFor's, by `model` then `of` (a model of the same signature, most often: a file changed in a label). */
const pairs = new WeakMap<Model, WeakMap<Model, Parts>>();

/** The parts `model` stores in its documents. */
export function storedParts(model: Model): readonly StoredPart[] {
  return partsOf(model).stored;
}

/** The stored part of `field`, when `model` stores it. */
export function storedPart(model: Model, field: string, part: IndexPart): StoredPart | undefined {
  return partsOf(model).stored.find((p) => p.field === field && p.part === part);
}

/**
 * The text of a part of a stored value: its 2 code points from the part's start, as the
 * `$substrCP` of translate.ts reads them ('' past the end; a value that is no text has none).
 */
export function partText(v: unknown, part: IndexPart): string | undefined {
  if (typeof v !== 'string') return undefined;
  const start = PART_START[part];
  // The first start + 2 code points lie within twice as many UTF-16 units.
  return [...v.slice(0, 2 * (start + 2))].slice(start, start + 2).join('');
}

/** The document of a member, with the parts the collection's model `of` stores (partsFor). */
export function toDocument(model: Model, id: number, updated: string, data: MemberData, of: Model = model): MemberDocument {
  const doc: MemberDocument = { _id: id, updated };
  for (const f of model.declared) {
    const v = ownValue(data, f.name);
    if (v !== null && v !== undefined) doc[fieldKey(model, f.name)] = v;
  }
  for (const { field, part, key } of partsFor(model, of).stored) {
    const text = partText(ownValue(data, field), part);
    if (text !== undefined) doc[key] = text;
  }
  return doc;
}

/**
 * The `$set` and `$unset` of a replace: `updated` and every present declared field set, every
 * absent declared one removed. Keys of fields the model no longer declares are left alone, so a
 * field that comes back finds its values again (as SQLite keeps the column).
 */
export function replacement(model: Model, updated: string, data: MemberData, of: Model = model): { $set: Record<string, Value>; $unset?: Record<string, ''> } {
  const $set: Record<string, Value> = { updated };
  const $unset: Record<string, ''> = {};
  for (const f of model.declared) {
    const v = ownValue(data, f.name);
    if (v !== null && v !== undefined) $set[fieldKey(model, f.name)] = v;
    else $unset[fieldKey(model, f.name)] = '';
  }
  // Its parts with it; a part the model no longer stores is removed, so that none is left stale
  // should an index name it again (a member written meanwhile would keep the old one).
  // (The parts of the collection's model `of`, partsFor.)
  const { stored, cleared } = partsFor(model, of);
  for (const { field, part, key } of stored) {
    const text = partText(ownValue(data, field), part);
    if (text !== undefined) $set[key] = text;
    else $unset[key] = '';
  }
  for (const key of cleared) $unset[key] = '';
  return Object.keys($unset).length > 0 ? { $set, $unset } : { $set };
}

/** The BSON types (`$type` aliases) of a field's values, as its type stores them. */
const BSON_TYPE: Record<FieldType, 'string' | 'number' | 'bool'> = {
  auto: 'number',
  string: 'string',
  text: 'string',
  date: 'string',
  'date-time': 'string',
  integer: 'number',
  float: 'number',
  boolean: 'bool',
};

/** The BSON types a value of a field of `type` may have been stored in under an earlier type. */
export function otherTypes(type: FieldType): ('string' | 'number' | 'bool')[] {
  return (['string', 'number', 'bool'] as const).filter((t) => t !== BSON_TYPE[type]);
}

/** The field type a stored value reads back as unchanged: text, a number (float) or a boolean; undefined for another BSON value. */
export function typeOfValue(v: unknown): FieldType | undefined {
  return typeof v === 'string' ? 'string' : typeof v === 'number' ? 'float' : typeof v === 'boolean' ? 'boolean' : undefined;
}

/**
 * A stored value as a value of its field's current `type` (model/values.ts `storedAs`), or undefined
 * (absent) when it is none.
 */
export function retyped(type: FieldType, v: unknown): Value | undefined {
  return storedAs(type, typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : String(v));
}

/** The member of a document: `id`, `updated`, then the present declared fields in model order. */
export function toMember(model: Model, doc: Record<string, unknown>): Member {
  const member: Member = { id: Number(doc._id), updated: String(doc.updated) };
  for (const f of model.declared) {
    const v = ownValue(doc, fieldKey(model, f.name));
    const value = v === null || v === undefined ? undefined : retyped(f.type, v);
    if (value !== undefined) member[f.name] = value;
  }
  return member;
}

/** The member as written (what `insert` and `replace` return without reading it back). */
export function writtenMember(model: Model, id: number, updated: string, data: MemberData): Member {
  const member: Member = { id, updated };
  for (const f of model.declared) {
    const v = ownValue(data, f.name);
    if (v !== null && v !== undefined) member[f.name] = v;
  }
  return member;
}
