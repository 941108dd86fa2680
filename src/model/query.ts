// Collection query parsing (README "Collection queries"): parameters in, a typed Query out, or one 400 naming each bad parameter.

import { validationError, type FieldError } from '../errors.ts';
import { CONDITIONS, type Condition, type FieldDef, type FieldType, type Filter, type Model, type Order, type Query, type Value } from './types.ts';
import { longerThan, parseValue } from './values.ts';

/** Parameters that are not filters. A field named like one is filtered as `<field>__exact`. */
export const RESERVED_PARAMS = ['start', 'count', 'order_by', 'format_as'] as const;

const TEXT_CONDITIONS: readonly Condition[] = ['iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith'];
const ORDER_CONDITIONS: readonly Condition[] = ['gt', 'gte', 'lt', 'lte', 'range'];
const DATE_PARTS: readonly Condition[] = ['year', 'month', 'day'];
const ANY: readonly Condition[] = ['exact', 'ne', 'in', 'isnull'];

/** Which conditions fit which field type, as data. */
export const CONDITIONS_BY_TYPE: Readonly<Record<FieldType, readonly Condition[]>> = {
  string: [...ANY, ...TEXT_CONDITIONS, ...ORDER_CONDITIONS],
  text: [...ANY, ...TEXT_CONDITIONS, ...ORDER_CONDITIONS],
  integer: [...ANY, ...ORDER_CONDITIONS],
  float: [...ANY, ...ORDER_CONDITIONS],
  auto: [...ANY, ...ORDER_CONDITIONS],
  boolean: ANY,
  date: [...ANY, ...ORDER_CONDITIONS, ...DATE_PARTS],
  'date-time': [...ANY, ...ORDER_CONDITIONS, ...DATE_PARTS],
};

/** Values one `in` filter may list. */
export const MAX_IN_VALUES = 1000;
/**
 * Values the `in` filters of one query may list together: SQLite binds at most 32,766 values a
 * statement, and the other filters of a query bind at most about 20 a field (1,002 fields), so
 * that a query SQLite can run is one MongoDB runs too, and the other way round.
 */
export const MAX_IN_VALUES_PER_QUERY = 10_000;
/**
 * Characters in the value of a text condition (contains, startswith, iexact, …), a URL's or a
 * handler's: MongoDB refuses a $regex pattern over 16,384 bytes (error 51091), and the pattern
 * takes at most 4 bytes a character (store/mongodb/translate.ts `escapeRegex`), so that both
 * stores answer every query the other does.
 */
export const MAX_TEXT_CONDITION_CHARS = 4000;

const PART_RANGE: Record<string, [number, number]> = { year: [0, 9999], month: [1, 12], day: [1, 31] };
/**
 * Keys the sort of an `order_by` may have: its fields up to the first `id`, then `id` when it is
 * not among them (the tie-break, store.ts `orderTerms`). MongoDB sorts on at most 32 keys (more is
 * its error 13103, "too many compound keys"), so that both stores answer every order the other
 * does, an order of more is refused on both.
 */
export const MAX_SORT_KEYS = 32;

/**
 * Fields one `order_by` may name, repeats included. A field counts once, so more than a model's
 * 1,002 fields can only repeat some; but a URL may repeat them (an 8 KiB one names up to 8,193),
 * and is read as it always was. A handler's query could name millions.
 */
export const MAX_ORDER_TERMS = 10_000;

/**
 * The comma-separated parts of `raw`, or undefined when there are more than `max`: found without
 * splitting the rest. A handler's query may hold 4 Mi characters, and splitting a million commas
 * (or ordering by a million fields) took the event loop 50 to 240 ms a call, every tenant waiting.
 */
function splitAtMost(raw: string, max: number): string[] | undefined {
  const parts: string[] = [];
  for (let from = 0; ; ) {
    const comma = raw.indexOf(',', from);
    parts.push(comma === -1 ? raw.slice(from) : raw.slice(from, comma));
    if (comma === -1) return parts;
    if (parts.length === max) return undefined;
    from = comma + 1;
  }
}

/** Digits a `start` or `count` may have: every such number is exact as a JavaScript number (below 2^53). */
export const MAX_PAGE_DIGITS = 15;
const NON_NEGATIVE = new RegExp(`^\\d{1,${MAX_PAGE_DIGITS}}$`);

const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** A run of percent-escapes: the bytes of one or more characters, which must be whole UTF-8 on their own. */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

/** Whether the percent-escapes of `raw` (a name or value as sent) stand for UTF-8. */
function escapesAreUtf8(raw: string): boolean {
  if (!raw.includes('%')) return true;
  for (const [run] of raw.matchAll(ESCAPES)) {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    try {
      UTF8.decode(bytes);
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * The parameters of a request's query string (the part after `?`), the first value of each
 * (README "Collection queries"). URLSearchParams decodes escapes that are not UTF-8 to U+FFFD,
 * which would then match stored text: such a parameter is 400 `invalid-query` instead.
 */
export function queryParams(raw: string): Map<string, string> {
  const params = new Map<string, string>();
  const errors: FieldError[] = [];
  for (const [k, v] of new URLSearchParams(raw)) if (!params.has(k)) params.set(k, v);
  if (raw.includes('%')) {
    for (const pair of raw.split('&')) {
      if (escapesAreUtf8(pair)) continue;
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      errors.push({ parameter: (escapesAreUtf8(name) ? new URLSearchParams(`${name}=`).keys().next().value! : name).slice(0, 64), message: 'is not UTF-8: percent-encode the UTF-8 bytes of its text' });
      if (errors.length === 100) break;
    }
  }
  if (errors.length) throw validationError('invalid-query', 'Invalid query', errors);
  return params;
}

/**
 * A member id segment of a URL path as the request parameter `<collection>Id` reads it (SPEC §4):
 * percent-decoded, as a query parameter is (`a%20b` is `a b`, `caf%C3%A9` is `café`, `a%2Fb` is
 * `a/b`), but with `+` kept (it is a space only in a query); a `%` that starts no escape is taken
 * literally, as queryParams takes it. Escapes that are not UTF-8 are 400 `invalid-query` naming
 * the parameter, as such a query parameter is.
 */
export function memberIdParam(raw: string, name: string): string {
  if (!raw.includes('%')) return raw;
  if (!escapesAreUtf8(raw)) {
    throw validationError('invalid-query', 'Invalid query', [{ parameter: name.slice(0, 64), message: 'is not UTF-8: percent-encode the UTF-8 bytes of the member id' }]);
  }
  return raw.replace(ESCAPES, (run) => decodeURIComponent(run));
}

/**
 * `<field>__<suffix>` (a filter's condition, an index key's date part) split at its last `__`: a
 * field name has no `__` of its own but may end in `_` (`a_` in `a___gt`); no `__`, no suffix.
 */
export function splitSuffix(name: string): { field: string; suffix: string | undefined } {
  const sep = name.lastIndexOf('__');
  return sep === -1 ? { field: name, suffix: undefined } : { field: name.slice(0, sep), suffix: name.slice(sep + 2) };
}

/** A field as a filter sees it: `max_length` does not bound a filter value. */
function filterField(field: FieldDef): FieldDef {
  if (field.maxLength === undefined) return field;
  const { maxLength: _bound, ...unbounded } = field;
  return unbounded;
}

function parseFilterValue(field: FieldDef, condition: Condition, raw: string): { value: Value | Value[] } | { message: string } {
  const one = (s: string): { ok: true; value: Value } | { ok: false; message: string } => parseValue(filterField(field), s, true);
  switch (condition) {
    // White space around these is no part of them, as around a value (values.ts parseValue).
    case 'isnull': {
      const text = raw.trim();
      if (text === 'true' || text === 'false') return { value: text === 'true' };
      return { message: 'must be true or false' };
    }
    case 'year':
    case 'month':
    case 'day': {
      const [lo, hi] = PART_RANGE[condition]!;
      const part = raw.trim();
      if (!/^\d{1,4}$/.test(part) || +part < lo || +part > hi) return { message: `must be an integer from ${lo} to ${hi}` };
      return { value: +part };
    }
    case 'in': {
      // A URL cannot hold more, but a handler's query can; SQLite binds at most 32,766 values.
      const parts = splitAtMost(raw, MAX_IN_VALUES);
      if (parts === undefined) return { message: `takes at most ${MAX_IN_VALUES} values` };
      const values: Value[] = [];
      for (const part of parts) {
        const p = one(part);
        if (!p.ok) return { message: `value "${part}" ${p.message}` };
        values.push(p.value);
      }
      return { value: values };
    }
    case 'range': {
      const parts = splitAtMost(raw, 2);
      if (parts?.length !== 2) return { message: 'must be two comma-separated bounds, low,high' };
      const bounds: Value[] = [];
      for (const part of parts) {
        const p = one(part);
        if (!p.ok) return { message: `bound "${part}" ${p.message}` };
        bounds.push(p.value);
      }
      return { value: bounds };
    }
    default: {
      // Code points, as max_length counts them, counted no further than the bound.
      if (TEXT_CONDITIONS.includes(condition) && longerThan(raw, MAX_TEXT_CONDITION_CHARS)) {
        return { message: `is a text of at most ${MAX_TEXT_CONDITION_CHARS} characters for "${condition}"` };
      }
      const p = one(raw);
      return p.ok ? { value: p.value } : { message: p.message };
    }
  }
}

/** Parses the query parameters of a list request. `defaultOrder` applies when `order_by` is absent. */
export function parseQuery(model: Model, params: Iterable<readonly [string, string]>, defaultOrder: readonly Order[] = []): Query {
  const errors: FieldError[] = [];
  const filters: Filter[] = [];
  let order: readonly Order[] = defaultOrder;
  let start = 0;
  let count: number | undefined;
  let inValues = 0;

  for (const [name, raw] of params) {
    switch (name) {
      case 'start':
      case 'count':
        if (!NON_NEGATIVE.test(raw)) {
          errors.push({ parameter: name, message: `must be a non-negative integer of at most ${MAX_PAGE_DIGITS} digits` });
        } else if (name === 'start') start = Number(raw);
        else count = Number(raw);
        continue;
      case 'format_as':
        // Checked by negotiation; accepted here so that the query stays valid.
        continue;
      case 'order_by': {
        // A field already ordered by cannot order anything again, so each field counts once (SQLite
        // also refuses over 2000 terms); each distinct problem is reported once.
        const parsed: Order[] = [];
        const seen = new Set<string>();
        const problems = new Set<string>();
        const terms = splitAtMost(raw, MAX_ORDER_TERMS);
        if (terms === undefined) {
          errors.push({ parameter: name, message: `names at most ${MAX_ORDER_TERMS} fields` });
          continue;
        }
        for (const part of terms) {
          const desc = part.startsWith('-');
          const field = desc ? part.slice(1) : part;
          if (!model.fields.has(field)) {
            problems.add(field ? `unknown field "${field.slice(0, 64)}"` : 'has an empty field name');
          } else if (!seen.has(field)) {
            seen.add(field);
            parsed.push({ field, desc });
          }
        }
        // The sort's keys: the fields up to the first id, then id (as store.ts `orderTerms`).
        const beforeId = parsed.findIndex((o) => o.field === 'id');
        const keys = beforeId === -1 ? parsed.length + 1 : beforeId + 1;
        if (keys > MAX_SORT_KEYS) problems.add(`orders by at most ${MAX_SORT_KEYS - 1} fields besides id, not ${keys - 1}`);
        for (const message of problems) errors.push({ parameter: name, message });
        order = parsed;
        continue;
      }
    }
    const { field: fieldName, suffix } = splitSuffix(name);
    const condition = (suffix ?? 'exact') as Condition;
    const field = model.fields.get(fieldName);
    if (!field) {
      errors.push({ parameter: name, message: `unknown field "${fieldName}"` });
      continue;
    }
    if (!CONDITIONS.includes(condition)) {
      errors.push({ parameter: name, message: `unknown condition "${condition}" (conditions: ${CONDITIONS.join(', ')})` });
      continue;
    }
    if (!CONDITIONS_BY_TYPE[field.type].includes(condition)) {
      errors.push({ parameter: name, message: `condition "${condition}" does not apply to ${field.type} field "${fieldName}"` });
      continue;
    }
    const parsed = parseFilterValue(field, condition, raw);
    if ('message' in parsed) errors.push({ parameter: name, message: parsed.message });
    else if (condition === 'in' && Array.isArray(parsed.value) && (inValues += parsed.value.length) > MAX_IN_VALUES_PER_QUERY) {
      errors.push({ parameter: name, message: `makes the in filters of the query list more than ${MAX_IN_VALUES_PER_QUERY} values together` });
    } else filters.push({ field: fieldName, condition, value: parsed.value });
  }
  if (errors.length) throw validationError('invalid-query', 'Invalid query', errors);
  return count === undefined ? { filters, order, start } : { filters, order, start, count };
}
