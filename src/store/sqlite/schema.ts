// The tables of an SQLite store: bookkeeping, one table per model, migrated when a model gains fields.

import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { isDateType, type FieldDef, type FieldType, type MemberData, type Model, type Value } from '../../model/types.ts';
import { ownValue, readsBackAs, storedAs } from '../../model/values.ts';
import { fromSql } from './rows.ts';
import { columnsSql, datePartSql, partKey, quoteIdent, textExpr, toSql, type Indexes, type TableShape } from './sql.ts';
import type { Statements } from './statements.ts';
import { fieldsSignature, modelSignature, nextUpdated } from '../store.ts';

/**
 * Version of the bookkeeping tables below, in `PRAGMA user_version`. 3: a field recorded as date or
 * date-time holds its values in canonical form (upgradeBookkeeping).
 */
const SCHEMA_VERSION = 3;

/**
 * Bookkeeping, created once per database. `svc_collections` maps a model name (case-sensitive,
 * as MongoDB's collection names are) to its table and keeps its member count, maintained by
 * triggers in the same transaction as every insert and delete, so an unfiltered count never
 * scans the table (README "Collection queries"). `svc_fields` maps each field to its column, chosen once and kept,
 * because SQLite identifiers are case-insensitive while field names are not (`Name` ≠ `name`).
 * `svc_shapes` numbers each set of declared fields (`fieldsSignature`) a collection has had: a
 * member's JSON text (TEXT_COLUMN) is valid for the shape it was written under (SHAPE_COLUMN).
 */
export const BOOKKEEPING_SQL = `
  CREATE TABLE IF NOT EXISTS svc_collections (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    tbl TEXT NOT NULL,
    count INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE IF NOT EXISTS svc_fields (
    collection INTEGER NOT NULL,
    field TEXT NOT NULL,
    col TEXT NOT NULL,
    type TEXT,
    PRIMARY KEY (collection, field)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS svc_shapes (
    id INTEGER PRIMARY KEY,
    collection INTEGER NOT NULL,
    signature TEXT NOT NULL,
    UNIQUE (collection, signature)
  );`;

/**
 * Whether the bookkeeping tables are there and as this svc keeps them, so that BOOKKEEPING_SQL and
 * upgradeBookkeeping would change nothing (reads: no lock to wait for).
 */
export function bookkeepingIsCurrent(statements: Statements): boolean {
  if (statements.row('PRAGMA user_version', [])![0] !== SCHEMA_VERSION) return false;
  const tables = statements.row(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('svc_collections', 'svc_fields', 'svc_shapes')`, [])![0];
  return tables === 3 && statements.row(`SELECT 1 FROM pragma_table_info('svc_fields') WHERE name = 'type'`, []) !== undefined;
}

/**
 * Brings the bookkeeping tables of a database an older svc made up to these (in the transaction
 * that ran BOOKKEEPING_SQL): `svc_fields.type`, the type each field's column holds values of (NULL
 * where an older svc last wrote them: unknown). An svc before version 3 kept the text of a field
 * made date or date-time as it was and served it so: such a field is recorded as holding strings,
 * and the next migration (schema.ts `canonicalDates`) rewrites what is not canonical, stamping the
 * members whose value reads otherwise than it was served.
 */
export function upgradeBookkeeping(db: DatabaseSync, statements: Statements): void {
  if (statements.row(`SELECT 1 FROM pragma_table_info('svc_fields') WHERE name = 'type'`, []) === undefined) db.exec('ALTER TABLE svc_fields ADD COLUMN type TEXT');
  const version = statements.row('PRAGMA user_version', [])![0] as number;
  if (version < 3) db.exec(`UPDATE svc_fields SET type = 'string' WHERE type IN ('date', 'date-time')`);
  if (version !== SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
}

/** Column affinity per field type: https://sqlite.org/datatype3.html#type_affinity */
const AFFINITY: Record<FieldType, string> = {
  auto: 'INTEGER',
  string: 'TEXT',
  text: 'TEXT',
  date: 'TEXT',
  'date-time': 'TEXT',
  integer: 'INTEGER',
  boolean: 'INTEGER',
  float: 'REAL',
};

/** Table names SQLite or this store reserve: a model with such a name gets a `~` prefix. */
const RESERVED_PREFIX = /^(sqlite_|svc_)/i;

/** What the store knows of one model's table, valid while the model's fields stay the same. */
export interface Collection {
  /** The declared fields' names and types this was built for. */
  readonly signature: string;
  /** `svc_collections.id`. */
  readonly key: number;
  /** `svc_shapes.id` of the declared fields this was built for. */
  readonly shapeId: number;
  readonly shape: TableShape;
  /** What the table's indexes serve (sql.ts `scans`). */
  readonly indexes: Indexes;
  readonly insert: string;
  readonly select: string;
  /** SELECT of TEXT_COLUMNS (sqlite-store.ts) of the member with an id. */
  readonly selectText: string;
  readonly exists: string;
  /** UPDATE of `updated` and every declared field; the conditional form adds IF_UPDATED. */
  readonly replace: string;
  readonly delete: string;
}

/**
 * Every member row keeps its declared fields as the JSON text `JSON.stringify` gives for them
 * (written with the row), and the shape it was written under; a list in JSON joins these texts
 * (rows.ts, memberText) instead of building objects. `~` is in no field name.
 */
export const TEXT_COLUMN = '~json';
export const SHAPE_COLUMN = '~shape';

/** A conditional write's SQL: the check and the write are one statement, so nothing changes in between. */
export const IF_UPDATED = ' AND "updated" = ?';

/**
 * Creates the model's table, or adds the columns of fields the model gained and moves a field
 * whose type changed between text and numbers to a column of its new type; to be run in a
 * transaction. Columns of removed fields stay, with their data: a field that comes back finds
 * its values again.
 */
export function migrate(db: DatabaseSync, statements: Statements, model: Model): Collection {
  return migrateOrLook(db, statements, model, false);
}

/**
 * The collection of `model` when its table already holds the model as `migrate` would leave it,
 * else undefined; changes nothing (in a read transaction, one snapshot). It stops at the first
 * change the table needs, and reads no more than the bookkeeping, the schema and index ranges: a
 * few milliseconds for a model of 1,000 fields, which the event loop can afford, where `migrate`
 * may read and write every member. A store meets each of its tables so on its first use after the
 * store opens; only a table that needs changing goes to the migration thread (migrator.ts).
 */
export function collectionAsIs(db: DatabaseSync, statements: Statements, model: Model): Collection | undefined {
  try {
    return migrateOrLook(db, statements, model, true);
  } catch (e) {
    if (e === NEEDS_CHANGE) return undefined;
    throw e;
  }
}

/** What a look (migrateOrLook with `look`) throws at the first change the table needs. */
const NEEDS_CHANGE = new Error('the table needs changing');

/** `migrate`, or with `look` `collectionAsIs`: one walk, so that the two never disagree on what needs changing. */
function migrateOrLook(db: DatabaseSync, statements: Statements, model: Model, look: boolean): Collection {
  /** Before each change: a look stops there. */
  const change = (): void => {
    if (look) throw NEEDS_CHANGE;
  };
  const exec = (sql: string): void => {
    change();
    db.exec(sql);
  };
  let row = statements.row('SELECT id, tbl FROM svc_collections WHERE name = ?', [model.name]);
  if (!row) {
    change();
    const base = RESERVED_PREFIX.test(model.name) ? `~${model.name}` : model.name;
    const table = freeName(base, (n) => statements.row('SELECT 1 FROM sqlite_schema WHERE lower(name) = lower(?)', [n]) !== undefined);
    // AUTOINCREMENT: ids are never reused, even after the highest is deleted.
    db.exec(`CREATE TABLE ${quoteIdent(table)} ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "updated" TEXT NOT NULL)`);
    const key = Number(statements.get('INSERT INTO svc_collections (name, tbl) VALUES (?, ?)').run(model.name, table).lastInsertRowid);
    // Only an integer from SQLite is written into the trigger bodies (triggers take no parameters).
    for (const [suffix, event, delta] of [['count+', 'INSERT', '+'], ['count-', 'DELETE', '-']] as const) {
      db.exec(
        `CREATE TRIGGER ${quoteIdent(`${table}/${suffix}`)} AFTER ${event} ON ${quoteIdent(table)} ` +
          `BEGIN UPDATE svc_collections SET count = count ${delta} 1 WHERE id = ${key}; END`,
      );
    }
    db.exec(`CREATE INDEX ${quoteIdent(`${table}/updated`)} ON ${quoteIdent(table)} ("updated", "id")`);
    row = [key, table];
  }
  const key = row[0] as number;
  const table = row[1] as string;

  const columnOf = new Map<string, string>();
  /** The type each field's column holds values of, where it is known. */
  const typeOf = new Map<string, FieldType>();
  for (const [field, col, type] of statements.rows('SELECT field, col, type FROM svc_fields WHERE collection = ?', [key])) {
    columnOf.set(field as string, col as string);
    if (typeof type === 'string' && type in AFFINITY) typeOf.set(field as string, type as FieldType);
  }
  // Each column's declared type as it was created: its affinity.
  const declaredType = new Map<string, string>();
  for (const [name, type] of statements.rows('SELECT name, type FROM pragma_table_info(?)', [table])) declaredType.set(name as string, String(type).toUpperCase());
  const t = quoteIdent(table);
  for (const col of [TEXT_COLUMN, SHAPE_COLUMN]) {
    if (!declaredType.has(col)) exec(`ALTER TABLE ${t} ADD COLUMN ${quoteIdent(col)} ${col === TEXT_COLUMN ? 'TEXT' : 'INTEGER'}`);
  }
  const fields = fieldsSignature(model);
  const shapeOf = () => statements.row('SELECT id FROM svc_shapes WHERE collection = ? AND signature = ?', [key, fields])?.[0] as number | undefined;
  let shapeId = shapeOf();
  if (shapeId === undefined) {
    change();
    statements.get('INSERT INTO svc_shapes (collection, signature) VALUES (?, ?)').run(key, fields);
    shapeId = shapeOf()!;
  }
  // Index names, lower-cased: SQLite compares them ignoring (ASCII) case, and they are one namespace for every table.
  const indexNames = new Set(statements.rows(`SELECT name FROM sqlite_schema WHERE type = 'index'`, []).map(([name]) => (name as string).toLowerCase()));
  const hasIndex = (name: string): boolean => indexNames.has(name.toLowerCase());
  const createIndex = (name: string, keys: string): void => {
    if (hasIndex(name)) return;
    exec(`CREATE INDEX ${quoteIdent(name)} ON ${t} (${keys})`);
    indexNames.add(name.toLowerCase());
  };
  const dropIndex = (name: string): void => {
    if (!hasIndex(name)) return;
    exec(`DROP INDEX ${quoteIdent(name)}`);
    indexNames.delete(name.toLowerCase());
  };

  const taken = new Set(['id', 'updated', ...columnOf.values()].map((n) => n.toLowerCase()));
  const addColumn = (field: FieldDef): string => {
    change();
    const col = freeName(field.name, (n) => taken.has(n.toLowerCase()));
    taken.add(col.toLowerCase());
    columnOf.set(field.name, col);
    declaredType.set(col, AFFINITY[field.type]);
    db.exec(`ALTER TABLE ${t} ADD COLUMN ${quoteIdent(col)} ${AFFINITY[field.type]}`);
    return col;
  };
  // A field whose type changed between text and numbers (or booleans) moves to a new column of its type's
  // affinity, with its values as reads gave them (a column keeps the affinity it was made with:
  // text in a column made for numbers would compare and order as numbers, "0123" = 123). The old
  // column is dropped once no index reads it. A float moves out of a column made for integers
  // too: there a float that is a whole number is stored as an INTEGER, which node:sqlite refuses
  // to read past 2^53 (1e18 in an integer field made float made the member unreadable). And a
  // field leaves a column made for floats: an integer field's fractions are rounded (1.5 is 2),
  // or a filter would compare 1.5 where a read gives 2.
  const retired: string[] = [];
  for (const field of model.declared) {
    const old = columnOf.get(field.name);
    if (old === undefined || !moves(declaredType.get(old)!, field.type)) continue;
    const col = addColumn(field);
    convert(statements, t, quoteIdent(old), quoteIdent(col), field, typeOf.get(field.name), shapeId);
    statements.get('UPDATE svc_fields SET col = ? WHERE collection = ? AND field = ?').run(col, key, field.name);
    dropIndex(`${table}/${old}`);
    retired.push(old);
  }
  for (const field of model.declared) {
    if (columnOf.has(field.name)) continue;
    const col = addColumn(field);
    statements.get('INSERT INTO svc_fields (collection, field, col) VALUES (?, ?, ?)').run(key, field.name, col);
  }
  // A boolean is stored as 0 or 1: a number left from a numeric type is rewritten as its truth
  // value (the ranges read the field's index, when it has one). The row's JSON text no longer
  // holds what its columns do: its shape is cleared, or the text would be read again once that
  // shape is current again (integer 5 → boolean true → integer: 5 by id, 1 to a filter).
  // Such a member is another member now, at the same `updated`: it is stamped again, as a write
  // stamps it (nextUpdated), so that no ETag names both (README "Concurrency").
  for (const field of model.declared) {
    if (field.type !== 'boolean') continue;
    const col = quoteIdent(columnOf.get(field.name)!);
    const other = `SELECT "id", "updated" FROM ${t} WHERE ${col} < 0 OR (${col} > 0 AND ${col} < 1) OR ${col} > 1`;
    if (look) {
      // A look reads the field's index only: without one, the query reads every member.
      if (!hasIndex(`${table}/${columnOf.get(field.name)!}`) || statements.row(`${other} LIMIT 1`, []) !== undefined) change();
      continue;
    }
    const stamp = statements.get(`UPDATE ${t} SET ${col} = (${col} != 0), ${quoteIdent(SHAPE_COLUMN)} = NULL, "updated" = ? WHERE "id" = ?`);
    for (const [id, updated] of statements.rows(other, [])) stamp.run(nextUpdated(updated as string), id!);
  }
  // A field made date or date-time holds its values as a write stores them (canonical: a
  // date-time in UTC with milliseconds and `Z`), or none: text kept from a string field, or a date
  // made date-time, is rewritten in place (a column that moved was converted so already), so that
  // filters and orders compare what reads give. As above, a rewritten row's JSON text no longer
  // holds its value, and a value that does not read back as it was stamps the member again.
  for (const field of model.declared) {
    const held = typeOf.get(field.name);
    if (!isDateType(field.type) || held === field.type) continue;
    change();
    canonicalDates(statements, t, quoteIdent(columnOf.get(field.name)!), field.type, held);
  }
  for (const field of model.declared) {
    const col = columnOf.get(field.name)!;
    const index = `${table}/${col}`;
    // (field, id) serves a first page in the field's order, ties by id, without sorting; a field
    // declared `"index": false` has none (cheaper writes; its filters and orders read every member).
    if (field.index === false) dropIndex(index);
    else createIndex(index, `${quoteIdent(col)}, "id"`);
  }
  // The model's compound indexes, named `<table>/+<columns and parts>` (no column name starts
  // with "+"): columns, not fields, because SQLite compares names ignoring case, as it does the
  // columns (`Name` and `name` are columns `Name` and `name~2`). One the model no longer declares is
  // dropped. A key's expression is the one its condition compares.
  const compound = `${table}/+`;
  const declaredIndexes = new Set<string>();
  for (const index of model.indexes) {
    const cols = index.keys.map(({ field, part }) => ({ col: columnOf.get(field)!, part }));
    const name = compound + cols.map(({ col, part }) => (part === undefined ? col : `${col}__${part}`)).join(',');
    declaredIndexes.add(name.toLowerCase());
    const keys = cols.map(({ col, part }) => (part === undefined ? quoteIdent(col) : datePartSql(quoteIdent(col), part)));
    createIndex(name, `${keys.join(', ')}, "id"`);
  }
  const existing = statements.rows(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND substr(name, 1, ?) = ?`, [table, compound.length, compound]);
  for (const [name] of existing) {
    if (!declaredIndexes.has((name as string).toLowerCase())) dropIndex(name as string);
  }
  for (const col of retired) exec(`ALTER TABLE ${t} DROP COLUMN ${quoteIdent(col)}`);
  // What the columns hold now, for the next change's conversion.
  for (const field of model.declared) {
    if (typeOf.get(field.name) === field.type) continue;
    change();
    statements.get('UPDATE svc_fields SET type = ? WHERE collection = ? AND field = ?').run(field.type, key, field.name);
  }

  const shape: TableShape = {
    table,
    columns: [
      { field: 'id', column: 'id', type: 'auto' },
      { field: 'updated', column: 'updated', type: 'date-time' },
      ...model.declared.map((f) => {
        return { field: f.name, column: columnOf.get(f.name)!, type: f.type };
      }),
    ],
  };
  // Written: `updated`, the declared fields, their JSON text and the shape (rows.ts, values()).
  const stored = [...shape.columns.slice(1).map((c) => c.column), TEXT_COLUMN, SHAPE_COLUMN].map(quoteIdent);
  // Read: a member's id, `updated`, JSON text and shape (sqlite-store.ts TEXT_COLUMNS).
  const texts = ['id', 'updated', TEXT_COLUMN, SHAPE_COLUMN].map(quoteIdent).join(', ');
  const indexes: Indexes = {
    unindexed: new Set(model.declared.filter((f) => f.index === false).map((f) => f.name)),
    leading: new Set(model.indexes.map(({ keys: [first] }) => (first!.part === undefined ? first!.field : partKey(first!.field, first!.part)))),
  };
  return {
    signature: modelSignature(model),
    key,
    shapeId,
    shape,
    indexes,
    insert: `INSERT INTO ${t} (${stored.join(', ')}) VALUES (${stored.map(() => '?').join(', ')})`,
    select: `SELECT ${columnsSql(shape)} FROM ${t} WHERE "id" = ?`,
    selectText: `SELECT ${texts} FROM ${t} WHERE "id" = ?`,
    exists: `SELECT 1 FROM ${t} WHERE "id" = ?`,
    replace: `UPDATE ${t} SET ${stored.map((c) => `${c} = ?`).join(', ')} WHERE "id" = ?`,
    delete: `DELETE FROM ${t} WHERE "id" = ?`,
  };
}

/**
 * Whether the table still keeps every declared field of `c` in the column `c` names, holding values
 * of the type `c` was made for: a later migration (by this process or another on the file) may have
 * moved a field to another column or given it another type. `string` and `text` hold the same values.
 */
export function stillFits(statements: Statements, c: Collection): boolean {
  const recorded = new Map<string, readonly SQLOutputValue[]>();
  for (const row of statements.rows('SELECT field, col, type FROM svc_fields WHERE collection = ?', [c.key])) recorded.set(row[0] as string, row);
  const held = (type: unknown) => (type === 'text' ? 'string' : type);
  return c.shape.columns.slice(2).every(({ field, column, type }) => {
    const r = recorded.get(field);
    return r !== undefined && r[1] === column && held(r[2]) === held(type);
  });
}

function isText(affinity: string): boolean {
  return affinity === 'TEXT';
}

/**
 * Whether a field of `type` leaves a column of affinity `from`: between text and the others, into
 * REAL, and an integer out of REAL (a REAL column holds booleans as they are, 0 and 1).
 */
function moves(from: string, type: FieldType): boolean {
  const to = AFFINITY[type];
  return isText(from) !== isText(to) || (to === 'REAL' && from !== 'REAL') || (type === 'integer' && from === 'REAL');
}

/** Rows a type change converts per statement (a page of rows by id, read whole before it is written). */
const CONVERT_BATCH = 1000;

/**
 * Fills column `to` of table `t` with each member's value of `field` in its new type, as a read
 * gave it before: from the stored JSON text when the member was written under the current shape
 * (`shapeId`), else converted from column `from` as toMember converts it (model/values.ts
 * `storedAs`): a value that is none in the new type ("abc" in a number field, 1e20 in an integer
 * field, which node:sqlite would refuse to read) is left absent.
 *
 * A member converted from its column gets no shape: its JSON text holds the value of an older
 * type, and a shape id comes back when the fields do (integer → text → boolean → integer), when
 * the text would be read again in place of the converted columns.
 */
function convert(statements: Statements, t: string, from: string, to: string, field: FieldDef, held: FieldType | undefined, shapeId: number): void {
  // An INTEGER is read as a REAL: one past 2^53 (a float left in a column made for integers) could not be read at all.
  const value = `CASE WHEN typeof(${from}) = 'integer' THEN CAST(${from} AS REAL) ELSE ${textExpr(from)} END`;
  const write = statements.get(`UPDATE ${t} SET ${to} = ?, ${quoteIdent(SHAPE_COLUMN)} = ? WHERE "id" = ?`);
  const stamped = statements.get(`UPDATE ${t} SET ${to} = ?, ${quoteIdent(SHAPE_COLUMN)} = ?, "updated" = ? WHERE "id" = ?`);
  eachRow(statements, t, from, `${value}, ${quoteIdent(TEXT_COLUMN)}, ${quoteIdent(SHAPE_COLUMN)}, "updated"`, ([id, v, text, shape, updated]) => {
    const current = shape === shapeId && typeof text === 'string';
    let value: Value | undefined;
    if (current) value = ownValue(JSON.parse(text) as MemberData, field.name);
    else if (held !== undefined) {
      // The value as a read in the type the column held gave it (a boolean kept as 1 is true),
      // then in the new type: a boolean made text reads "true", as the MongoDB store reads the
      // boolean it keeps.
      const before = fromSql(held, v!);
      value = before === undefined || before === null ? undefined : storedAs(field.type, before);
      // A value the new type cannot hold as it was ("0123" as 123, 5 as true, 1.5 as 2, "abc" as
      // absent) makes the member another one at the same `updated`, which a change back to the
      // old type (the same model file, the same ETag version) would serve under its old ETag:
      // it is stamped again, as a write stamps it (README "Concurrency").
      if (before !== undefined && before !== null && !readsBackAs(held, value, before)) {
        stamped.run(toSql(value ?? null), null, nextUpdated(updated as string), id!);
        return;
      }
    } else {
      // A column an older svc wrote, whose type is not recorded: the value as written while the
      // row's JSON text still holds it (a conversion that changes the columns clears the shape).
      const written = shape !== null && typeof text === 'string' ? ownValue(JSON.parse(text) as MemberData, field.name) : undefined;
      value = written !== undefined && written !== null ? storedAs(field.type, written) : fromSql(field.type, v!);
    }
    write.run(toSql(value ?? null), current ? shape : null, id!);
  });
}

/**
 * `each` row of table `t` whose column `col` is not NULL, with `"id"` and then `columns` read, in
 * the order of their ids, CONVERT_BATCH rows a statement (each page is read whole before `each`
 * writes to its rows, so a write cannot move a row under the read).
 */
function eachRow(statements: Statements, t: string, col: string, columns: string, each: (row: SQLOutputValue[]) => void): void {
  const read = `SELECT "id", ${columns} FROM ${t} WHERE "id" > ? AND ${col} IS NOT NULL ORDER BY "id" LIMIT ${CONVERT_BATCH}`;
  for (let last = 0, rows = statements.rows(read, [last]); rows.length > 0; rows = statements.rows(read, [last])) {
    for (const row of rows) {
      each(row);
      last = row[0] as number;
    }
  }
}

/**
 * Rewrites column `col` of table `t`, which a field of `type` (date or date-time) now reads, to
 * the canonical value of each stored one (model/values.ts `storedAs`), or NULL where it holds none;
 * `held` is the type the column held values of (undefined: not recorded).
 */
function canonicalDates(statements: Statements, t: string, col: string, type: 'date' | 'date-time', held: FieldType | undefined): void {
  const write = statements.get(`UPDATE ${t} SET ${col} = ?, ${quoteIdent(SHAPE_COLUMN)} = NULL WHERE "id" = ?`);
  const stamped = statements.get(`UPDATE ${t} SET ${col} = ?, ${quoteIdent(SHAPE_COLUMN)} = NULL, "updated" = ? WHERE "id" = ?`);
  eachRow(statements, t, col, `${col}, "updated"`, ([id, v, updated]) => {
    const text = fromSql('string', v!) as string;
    const value = storedAs(type, text);
    if (value === text) return;
    // The value as a read in the type the column held gave it: a date made date-time reads back
    // as the same date (no new `updated`); a date-time made date, or text rewritten, does not.
    const before = held === undefined ? undefined : fromSql(held, v!);
    if (before !== undefined && before !== null && readsBackAs(held, value, before)) write.run(toSql(value ?? null), id!);
    else stamped.run(toSql(value ?? null), nextUpdated(updated as string), id!);
  });
}

/** `base`, or `base~2`, `base~3`, … : the first that is not `taken` (`~` is in no model or field name). */
function freeName(base: string, taken: (name: string) => boolean): string {
  let name = base;
  for (let n = 2; taken(name); n++) name = `${base}~${n}`;
  return name;
}
