// Rows ↔ members: values as SQLite binds and returns them, in the canonical forms of the model.

import type { SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { FieldType, Member, MemberData, Value } from '../../model/types.ts';
import { toSql, type Column } from './sql.ts';

const decoder = new TextDecoder();

/** A stored value in its canonical form for a field of `type`. */
export function fromSql(type: FieldType, v: NonNullable<SQLOutputValue>): Value {
  switch (type) {
    case 'boolean':
      return typeof v === 'number' ? v !== 0 : Boolean(v);
    case 'integer':
    case 'float':
    case 'auto':
      return typeof v === 'number' ? v : Number(v);
    default:
      // A BLOB is text that holds a NUL (see selectExpr); a number is left from an earlier field type.
      return typeof v === 'string' ? v : v instanceof Uint8Array ? decoder.decode(v) : String(v);
  }
}

/** The member of a row of `columns` (`id`, `updated`, then the declared fields); NULL is absent. */
export function toMember(columns: readonly Column[], row: readonly SQLOutputValue[]): Member {
  const member: Member = { id: row[0] as number, updated: row[1] as string };
  for (let i = 2; i < columns.length; i++) {
    const v = row[i];
    if (v !== null && v !== undefined) member[columns[i]!.field] = fromSql(columns[i]!.type, v);
  }
  return member;
}

/** The member as written: `id`, `updated`, then the present declared fields in model order. */
export function written(columns: readonly Column[], id: number, updated: string, data: MemberData): Member {
  const member: Member = { id, updated };
  for (let i = 2; i < columns.length; i++) {
    const v = data[columns[i]!.field];
    if (v !== null && v !== undefined) member[columns[i]!.field] = v;
  }
  return member;
}

/**
 * What a write stores after `updated`: the declared fields' values in column order (NULL for
 * absent ones), then their JSON text and the shape it is valid for (schema.ts, TEXT_COLUMN).
 */
export function values(columns: readonly Column[], data: MemberData, shapeId: number): SQLInputValue[] {
  const out: SQLInputValue[] = [];
  const fields: Record<string, unknown> = {};
  for (let i = 2; i < columns.length; i++) {
    const { field } = columns[i]!;
    const v = data[field];
    out.push(toSql(v ?? null));
    // As `written` and `toMember` give the member: present fields, in model order.
    if (v !== null && v !== undefined) fields[field] = v;
  }
  out.push(JSON.stringify(fields), shapeId);
  return out;
}

/**
 * The JSON text of a member from its stored parts: exactly `JSON.stringify` of the member that
 * `toMember` would build (`id`, `updated`, then the fields of `fieldsText` in their order).
 */
export function memberText(id: number, updated: string, fieldsText: string): string {
  return `{"id":${id},"updated":${JSON.stringify(updated)}${fieldsText.length > 2 ? `,${fieldsText.slice(1)}` : '}'}`;
}
