// A store sees on the event loop whether a table already holds a model (schema.ts collectionAsIs),
// and migrates it in the migration thread only when it does not. Were the look wrong, a model
// change would be skipped (a field with no column, an index never made, values never rewritten):
// over random sequences of models and writes, whenever the look finds the table as it is,
// `migrate` changes nothing in the database and makes the same collection; and whenever
// `migrate` would change nothing, the look says so, unless it would have to read every member
// (a boolean field without an index, whose numbers other than 0 and 1 only a scan finds).

import fc from 'fast-check';
import { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import type { DeclaredType, Model } from '../../src/model/types.ts';
import { BOOKKEEPING_SQL, collectionAsIs, migrate, upgradeBookkeeping } from '../../src/store/sqlite/schema.ts';
import { quoteIdent } from '../../src/store/sqlite/sql.ts';
import { Statements } from '../../src/store/sqlite/statements.ts';
import { indexDef, makeModel, type FieldSpec } from '../fixtures/models.ts';

const NAMES = ['a', 'b', 'A', 'c'] as const;
const TYPES: readonly DeclaredType[] = ['string', 'text', 'integer', 'float', 'boolean', 'date', 'date-time'];

const field = fc.record({ type: fc.constantFrom(...TYPES), unindexed: fc.boolean() });
const modelSpec = fc.record({
  fields: fc.dictionary(fc.constantFrom(...NAMES), field, { maxKeys: 4 }),
  compound: fc.boolean(),
});
/** A value written to a field's column as a row of the model's time would, or one of another type. */
const value = fc.constantFrom<string | number | null>(null, 0, 1, 5, 0.5, '0123', 'abc', '2024-05-01', '2024-05-01T10:00:00+02:00', '2024-05-01T08:00:00.000Z');

function toModel(spec: { fields: Record<string, { type: DeclaredType; unindexed: boolean }>; compound: boolean }): Model {
  const fields: Record<string, FieldSpec> = {};
  for (const [name, f] of Object.entries(spec.fields)) fields[name] = f.unindexed ? { type: f.type, index: false } : f.type;
  const names = Object.keys(fields);
  // A compound index of the first two fields (one key a part, when the first is a date).
  const first = spec.fields[names[0]!];
  const keys = names.length < 2 ? [] : [first!.type === 'date' || first!.type === 'date-time' ? `${names[0]}__day` : names[0]!, names[1]!];
  return makeModel('m', fields, { indexes: spec.compound && keys.length === 2 ? [indexDef(...keys)] : [] });
}

/** Everything migrate may change: the schema, the bookkeeping and the table's rows. */
function dump(db: DatabaseSync): string {
  const parts = [db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name').all()];
  for (const table of ['svc_collections', 'svc_fields', 'svc_shapes']) parts.push(db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());
  if (db.prepare(`SELECT 1 FROM sqlite_schema WHERE name = 'm'`).get()) parts.push(db.prepare('SELECT * FROM m ORDER BY id').all());
  return JSON.stringify(parts);
}

t.test('the look agrees with migrate', async (t) => {
  let looked = 0;
  // Steps pick among a few models: a table goes back to a model it held, or stays with one.
  const sequences = fc.array(modelSpec, { minLength: 1, maxLength: 3 }).chain((pool) =>
    fc.array(fc.record({ model: fc.nat(pool.length - 1).map((i) => pool[i]!), writes: fc.array(value, { maxLength: 3 }) }), { minLength: 1, maxLength: 8 }),
  );
  fc.assert(
    fc.property(sequences, (steps) => {
      const db = new DatabaseSync(':memory:');
      const statements = new Statements(db);
      try {
        db.exec(BOOKKEEPING_SQL);
        upgradeBookkeeping(db, statements);
        for (const { model: spec, writes } of steps) {
          const model = toModel(spec);
          db.exec('BEGIN');
          const asIs = collectionAsIs(db, statements, model);
          const before = dump(db);
          const c = migrate(db, statements, model);
          const after = dump(db);
          db.exec('COMMIT');
          if (asIs !== undefined) {
            looked++;
            if (after !== before) throw new Error(`the look found ${JSON.stringify(spec)} as it is, and migrate changed the database`);
            t.same(c, asIs);
          } else if (after === before && !model.declared.some((f) => f.type === 'boolean' && f.index === false)) {
            throw new Error(`migrate changed nothing for ${JSON.stringify(spec)}, and the look did not see so`);
          }
          // Rows written through the collection as it is now, with values of any type in its columns
          // (as an older svc, or a process still on the previous model, may have left them).
          for (const v of writes) {
            const cols = c.shape.columns.slice(2).map((col) => quoteIdent(col.column));
            db.prepare(`INSERT INTO ${quoteIdent(c.shape.table)} ("updated"${cols.map((col) => `, ${col}`).join('')}) VALUES (?${cols.map(() => ', ?').join('')})`).run('2025-01-01T00:00:00.000Z', ...cols.map(() => v));
          }
        }
      } finally {
        statements.close();
        db.close();
      }
    }),
    { numRuns: 300 },
  );
  t.ok(looked > 100, `the look found the table as it is in ${looked} steps`);
});
