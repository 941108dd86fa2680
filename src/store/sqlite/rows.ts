// Rows ↔ members: values as SQLite binds and returns them, in the canonical forms of the model.

import type { SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { FieldType, Member, MemberData, Value } from '../../model/types.ts';
import { ownValue, storedAs } from '../../model/values.ts';
import { toSql, type Column } from './sql.ts';

const decoder = new TextDecoder();

/** A stored value in its canonical form for a field of `type`, or undefined (absent): model/values.ts `storedAs`. */
export function fromSql(type: FieldType, v: NonNullable<SQLOutputValue>): Value | undefined {
  // A BLOB is text that holds a NUL (see selectExpr).
  return storedAs(type, v instanceof Uint8Array ? decoder.decode(v) : typeof v === 'bigint' ? Number(v) : v);
}

/** The member of a row of `columns` (`id`, `updated`, then the declared fields); NULL is absent. */
export function toMember(columns: readonly Column[], row: readonly SQLOutputValue[]): Member {
  const member: Member = { id: row[0] as number, updated: row[1] as string };
  for (let i = 2; i < columns.length; i++) {
    const v = row[i];
    const value = v === null || v === undefined ? undefined : fromSql(columns[i]!.type, v);
    if (value !== undefined) member[columns[i]!.field] = value;
  }
  return member;
}

/** The member as written: `id`, `updated`, then the present declared fields in model order. */
export function written(columns: readonly Column[], id: number, updated: string, data: MemberData): Member {
  const member: Member = { id, updated };
  for (let i = 2; i < columns.length; i++) {
    const v = ownValue(data, columns[i]!.field);
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
    const v = ownValue(data, field);
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
