// The shapes every stage shares: field types, models, members and parsed collection queries.

/** Field types a model may declare. `auto` is reserved for the implicit `id`. */
export const FIELD_TYPES = ['string', 'text', 'integer', 'float', 'boolean', 'date', 'date-time'] as const;
export type DeclaredType = (typeof FIELD_TYPES)[number];
export type FieldType = DeclaredType | 'auto';

/** Whether a field of `type` holds dates or date-times: canonical text, with month and day parts. */
export function isDateType(type: FieldType | undefined): type is 'date' | 'date-time' {
  return type === 'date' || type === 'date-time';
}

/** Options a field definition may carry, besides `type`. */
export const FIELD_OPTIONS = ['type', 'required', 'max_length', 'editable', 'default_value', 'label', 'description', 'index'] as const;

/** Default `max_length` of a `string` field, in characters (Unicode code points). */
export const DEFAULT_MAX_LENGTH = 50;

/**
 * A stored value in its canonical form: `date` is `YYYY-MM-DD`, `date-time` is
 * `YYYY-MM-DDTHH:mm:ss.sssZ` (UTC), `boolean` is a boolean, numbers are numbers.
 * `null` means absent.
 */
export type Value = string | number | boolean | null;

export interface FieldDef {
  readonly name: string;
  readonly type: FieldType;
  readonly required: boolean;
  readonly editable: boolean;
  readonly primaryKey: boolean;
  /** Only for `string` fields. */
  readonly maxLength?: number;
  /** Canonical value applied on create when the field is absent. */
  readonly defaultValue?: Value;
  readonly label?: string;
  readonly description?: string;
  /** `false`: the store keeps no index on this field (README "Models"); absent, it does. */
  readonly index?: false;
}

/** Parts of a `date` or `date-time` value a declared index can hold (README "Models", `indexes`). */
export const INDEX_PARTS = ['month', 'day'] as const;
export type IndexPart = (typeof INDEX_PARTS)[number];

/** One key of a declared index: a declared field, or a part of a date field's value. */
export interface IndexKey {
  readonly field: string;
  readonly part?: IndexPart;
}

/** A compound index a model declares; the store adds `id` as its last key. */
export interface IndexDef {
  /** The keys as declared, joined by commas (`born__day,name`): what names it in the model (and on MongoDB). */
  readonly name: string;
  readonly keys: readonly IndexKey[];
}

export interface Model {
  /** The model (and collection) name: the file's base name. */
  readonly name: string;
  /** Absolute path of the model file. */
  readonly file: string;
  /** Every field in order: `id`, `updated`, then the declared ones in file order. */
  readonly fields: ReadonlyMap<string, FieldDef>;
  /** Declared fields only, in file order. */
  readonly declared: readonly FieldDef[];
  /** Compound indexes declared under `indexes`, in file order (besides each field's own). */
  readonly indexes: readonly IndexDef[];
  readonly calculatedFields: Readonly<Record<string, string>>;
  readonly calculatedTypeFields: Readonly<Record<string, string>>;
  /**
   * The model file's text, hashed (8 hex digits): what a member's representations depend on
   * besides the member (its declared fields, Atom templates). Part of a member's ETag, so that a
   * changed model never lets a cache keep a representation of before (handler/members.ts etagOf).
   */
  readonly version: string;
  /**
   * The model file's state (file-stat.ts `FileStat.key`) when it was read; undefined for a model
   * not read from a file. A store migrates a table only to a model whose file is still so (sqlite-store.ts).
   */
  readonly fileKey?: string;
}

/** A stored member: `id`, `updated` and the declared fields that are present. */
export type Member = { id: number; updated: string; [field: string]: Value };

/** Member data to write: declared fields only, canonical values, absent fields left out. */
export type MemberData = Record<string, Value>;

/** Filter conditions of README "Collection queries", as data. */
export const CONDITIONS = [
  'exact', 'iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith',
  'gt', 'gte', 'lt', 'lte', 'ne', 'in', 'range', 'isnull', 'year', 'month', 'day',
] as const;
export type Condition = (typeof CONDITIONS)[number];

/**
 * One parsed filter. `value` is canonical for the field's type, except:
 * `in` → array of values, `range` → [low, high], `isnull` → boolean,
 * `year`/`month`/`day` → integer.
 */
export interface Filter {
  readonly field: string;
  readonly condition: Condition;
  readonly value: Value | Value[];
}

export interface Order {
  readonly field: string;
  readonly desc: boolean;
}

/** A parsed collection query. Ties in `order` are always broken by `id` ascending. */
export interface Query {
  readonly filters: readonly Filter[];
  readonly order: readonly Order[];
  /** Zero-based index of the first member. */
  readonly start: number;
  /** At most this many members; undefined = to the end. */
  readonly count?: number;
}
