// The MongoDB store (README "MongoDB"): one database per app, one collection per model, on the official driver.

import type { AnyBulkWriteOperation, Collection, Db, Document } from 'mongodb';
import { MONGODB_MAX_INDEXES } from '../../model/load.ts';
import { INDEX_PARTS, isDateType, type FieldType, type Filter, type Member, type MemberData, type Model, type Query } from '../../model/types.ts';
import { readsBackAs } from '../../model/values.ts';
import { assertModelCurrent, DEFAULT_STORE_TIME_MS, jsonTexts, modelChanged, modelFileChanged, modelSignature, nextUpdated, type ReadOptions, type Store, type WriteResult } from '../store.ts';
import { acquireClient, clientOptions, databaseName } from './connection.ts';
import { redact } from '../redact.ts';
import { fieldKey, otherTypes, partKey, partText, replacement, retyped, storedParts, toDocument, toMember, typeOfValue, writtenMember } from './documents.ts';
import { ignoreMissingIndex, isDuplicateKey, readError, storeError, writeError } from './errors.ts';
import { acquireMemoryServer } from './memory.ts';
import { translateFilters, translateQuery } from './translate.ts';

/**
 * The collection of id counters: `{ _id: <model name>, seq: <last id> }`. Model names have no
 * `.`, so no model's collection can be called this.
 */
export const COUNTERS = 'svc.counters';

/** Documents rewritten per bulk write (#retype, #fillParts). */
const REWRITE_BATCH = 1000;

/** A member's document as the driver types it (the shape is documents.ts's MemberDocument). */
type Stored = { _id: number } & Document;

/** A model's collection, prepared (indexes created) for the model's signature. */
interface Prepared {
  readonly model: Model;
  readonly signature: string;
  readonly ready: Promise<Collection<Stored>>;
  /** `ready` as the View of the models of this signature. */
  readonly view: Promise<View>;
  /**
   * Once ready: each field's type as the preparation recorded it in svc.counters, by document key
   * (the model's, and those recorded for fields it no longer declares).
   */
  types?: Readonly<Record<string, FieldType>>;
}

/**
 * What an operation of a model runs on: the collection and the preparation it is current with.
 * For a model of before (its file changed since this process prepared the collection for it, then
 * for the file's newer model), the fields of the model (by name) that the collection no longer
 * holds as the model reads and writes them: as another type (`retyped`: neither written nor read
 * by), or without a part the model reads from where it is stored (`reparted`: not read by). A
 * write stores the parts of `of`, the preparation's model. None for the model the collection was
 * prepared for.
 */
interface View {
  readonly c: Collection<Stored>;
  readonly entry: Prepared;
  /** The model whose parts a write stores (documents.ts `toDocument`): the operation's own, or the preparation's. */
  readonly of: Model;
  readonly retyped: ReadonlySet<string>;
  readonly reparted: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * A model's counter (the last id given) and its fields' types as the last process to prepare the
 * collection declared them, by document key (#retype reads them to know which values may need it).
 */
interface CounterDocument {
  _id: string;
  seq: number;
  types?: Record<string, FieldType>;
  /**
   * True once an svc that holds date and date-time values in canonical form recorded `types`: an
   * older one kept the text of a field made date or date-time as it was (and served it so), and
   * such a recorded type is read as string (#retype).
   */
  canonicalDates?: boolean;
  /**
   * When a process last prepared the collection for a model declaring the field, by document key
   * (the database's clock): which kept indexes of removed fields go first when there is no room
   * (#makeRoom).
   */
  declared?: Record<string, Date>;
}

/**
 * Opens the store of app `name` ('' in single-app mode) for a `mongodb://…`, `mongodb+srv://…`
 * or `mongodb-memory` URI. Connects first, so that a database that cannot be reached is one
 * clear error at start-up (no password in it); `lazy` skips that and connects on first use.
 */
export async function openMongoStore(uri: string, name: string, { lazy = false }: { lazy?: boolean } = {}): Promise<Store> {
  const memory = uri === 'mongodb-memory' ? await acquireMemoryServer() : undefined;
  const target = memory?.uri ?? uri;
  let db: string;
  try {
    db = databaseName(target, name);
  } catch (e) {
    await memory?.release();
    throw e;
  }
  const { client, connect, release } = acquireClient(target, clientOptions(target, { durable: !memory }));
  const close = async () => {
    await release();
    await memory?.release();
  };
  if (!lazy) {
    try {
      await connect();
      await client.db(db).command({ ping: 1 });
    } catch (e) {
      await close().catch(() => {});
      throw new Error(`store ${redact(uri)}: cannot reach MongoDB (${redact(String((e as Error)?.message ?? e))})`);
    }
  }
  return new MongoStore(client.db(db), connect, close);
}

class MongoStore implements Store {
  readonly #db: Db;
  readonly #counters: Collection<CounterDocument>;
  readonly #release: () => Promise<void>;
  readonly #connect: () => Promise<void>;
  /** Prepared collections by model name, with the signature they were prepared for. */
  readonly #collections = new Map<string, Prepared>();
  /** By Model object: a request's model is the same object as the previous request's while its file is unchanged. */
  #byModel = new WeakMap<Model, Prepared>();
  /** By model name: the writes of its members issued and not yet answered (#issue); a preparation lets them land first. */
  readonly #writing = new Map<string, Set<Promise<void>>>();
  #closed = false;

  constructor(db: Db, connect: () => Promise<void>, release: () => Promise<void>) {
    this.#db = db;
    this.#connect = connect;
    this.#counters = db.collection<CounterDocument>(COUNTERS);
    this.#release = release;
  }

  async ensure(model: Model): Promise<void> {
    await this.#collection(model);
  }

  async *list(model: Model, query: Query, options: ReadOptions = {}): AsyncIterable<Member> {
    const readable = this.#readable(model, await this.#view(model), [...query.filters, ...query.order]);
    const { c } = readable instanceof Promise ? await readable : readable;
    const { filter, sort, skip, limit } = translateQuery(model, query);
    const timeMs = readTime(options);
    // Filter, sort, skip and limit all run in the server; members arrive in batches as they are read.
    // maxTimeMS bounds the server's work on the cursor (its getMore batches included), not the
    // time between batches: https://www.mongodb.com/docs/manual/reference/method/cursor.maxTimeMS/
    const cursor = c.find(filter, { sort, maxTimeMS: timeMs, ...(skip > 0 ? { skip } : {}), ...(limit !== undefined ? { limit } : {}) });
    try {
      for await (const doc of cursor) yield toMember(model, doc);
    } catch (e) {
      throw readError(e, timeMs);
    } finally {
      // Also when the consumer stops early: the server forgets the cursor.
      await cursor.close().catch(() => {});
    }
  }

  listJson(model: Model, query: Query, options?: ReadOptions): AsyncIterable<string> {
    return jsonTexts(this.list(model, query, options));
  }

  async count(model: Model, filters: readonly Filter[], options: ReadOptions = {}): Promise<number> {
    const readable = this.#readable(model, await this.#view(model), filters);
    const { c } = readable instanceof Promise ? await readable : readable;
    const timeMs = readTime(options);
    try {
      // Without filters, the count the server keeps in the collection's metadata: no scan.
      return filters.length === 0 ? await c.estimatedDocumentCount() : await c.countDocuments(translateFilters(model, filters), { maxTimeMS: timeMs });
    } catch (e) {
      throw readError(e, timeMs);
    }
  }

  async get(model: Model, id: number): Promise<Member | null> {
    // Values are read as the model's types (toMember), whatever the collection holds.
    const { c } = await this.#view(model);
    try {
      const doc = await c.findOne({ _id: { $eq: id } });
      return doc ? toMember(model, doc) : null;
    } catch (e) {
      throw storeError(e);
    }
  }

  async insert(model: Model, data: MemberData, updated: string): Promise<Member> {
    const writable = this.#writable(model, await this.#view(model));
    let view = writable instanceof Promise ? await writable : writable;
    try {
      for (let attempt = 1; ; attempt++) {
        const id = await this.#nextId(model);
        // A preparation begun while the id was taken: the write waits for it, and is checked again.
        if (this.#collections.get(model.name) !== view.entry) view = await this.#writableLater(model, view);
        try {
          await this.#issue(model.name, view.c.insertOne(toDocument(model, id, updated, data, view.of)));
          return writtenMember(model, id, updated, data);
        } catch (e) {
          // The counter is behind the collection (it was lost, or data was restored without it):
          // move it past the highest id and take the next one. Ids are still never reused.
          if (!isDuplicateKey(e) || attempt > 1) throw writeError(e);
          await this.#catchUp(model, view.c);
        }
      }
    } catch (e) {
      throw storeError(e);
    }
  }

  async replace(model: Model, id: number, data: MemberData, updated: string, ifUpdated?: string): Promise<WriteResult<Member>> {
    // Issued in the turn the view is taken, as a delete is: two writes of a turn reach the database in the order they were made.
    const writable = this.#writable(model, await this.#view(model));
    const { c, of } = writable instanceof Promise ? await writable : writable;
    try {
      // One filtered write: the check of `updated` and the write cannot be separated by another writer.
      const result = await this.#issue(model.name, c.updateOne(this.#target(id, ifUpdated), replacement(model, updated, data, of))).catch((e: unknown) => {
        throw writeError(e);
      });
      if (result.matchedCount === 1) return { ok: true, value: writtenMember(model, id, updated, data) };
      return { ok: false, reason: await this.#missReason(c, id, ifUpdated) };
    } catch (e) {
      throw storeError(e);
    }
  }

  async delete(model: Model, id: number, ifUpdated?: string): Promise<WriteResult<void>> {
    // No field is written: a model of before deletes as well as the model as it is.
    const { c } = await this.#view(model);
    try {
      const result = await c.deleteOne(this.#target(id, ifUpdated)).catch((e: unknown) => {
        throw writeError(e);
      });
      if (result.deletedCount === 1) return { ok: true, value: undefined };
      return { ok: false, reason: await this.#missReason(c, id, ifUpdated) };
    } catch (e) {
      throw storeError(e);
    }
  }

  async ping(): Promise<void> {
    if (this.#closed) throw new Error('the store is closed');
    try {
      await this.#connect();
      await this.#db.command({ ping: 1 });
    } catch (e) {
      throw storeError(e);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#collections.clear();
    this.#byModel = new WeakMap();
    await this.#release();
  }

  /**
   * The collection of `model` to run an operation on (#entry: prepared for it, or being prepared).
   * A model this process prepared the collection for, whose file changed since, and which another
   * model of the file replaced (#entry prepares for no model whose file changed): the collection as
   * the current preparation leaves it, once ready, with the fields whose values it no longer holds
   * as `model` does (View), which an operation must not write, filter or order by (README "Models").
   * When nothing changed, the promise of the entry itself: an operation issues its command after
   * as many turns of the microtask queue as any other, in the order operations were called.
   */
  #view(model: Model): Promise<View> {
    const known = this.#byModel.get(model);
    if (known !== undefined && known !== this.#collections.get(model.name) && modelFileChanged(model)) return this.#staleView(model);
    try {
      return this.#entry(model).view;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** #view of a model of before: the current preparation's collection, once ready. */
  async #staleView(model: Model): Promise<View> {
    for (;;) {
      const current = this.#collections.get(model.name);
      // Its preparation failed: it leaves nothing to compare with, and the next request prepares again.
      if (current === undefined) throw modelChanged(model.name);
      const c = await current.ready.catch(() => {
        throw modelChanged(model.name);
      });
      if (this.#collections.get(model.name) === current) return { c, entry: current, of: current.model, ...changedFields(model, current) };
    }
  }

  /**
   * `view` of `model` once it is current for a write of the model's fields, synchronously when
   * nothing changed: a preparation begun since it was taken (a request under another model of the
   * file) is waited for, and the write is refused (model-changed) when the collection then holds a
   * field of it otherwise than `model` writes it (a 7 written under an integer model after the
   * field was made boolean would read `true` but not be found by `n=true`; #retype converted the 7s
   * there before). The same when the model's file changed and another process recorded other types
   * for its fields (that process prepared for the file's newer model). A change that only added or
   * removed fields lets the write through, as if made before it.
   */
  #writable(model: Model, view: View): View | Promise<View> {
    if (this.#collections.get(model.name) === view.entry && view.retyped.size === 0 && !modelFileChanged(model)) return view;
    return this.#writableLater(model, view);
  }

  async #writableLater(model: Model, view: View): Promise<View> {
    while (this.#collections.get(model.name) !== view.entry) view = await this.#view(model);
    if (view.retyped.size > 0 || (await this.#recordedOtherwise(model, model.declared)).size > 0) throw modelChanged(model.name);
    return view;
  }

  /**
   * `view` of `model` for a read that filters or orders by `terms` (synchronously when nothing
   * changed): model-changed when one names a field the collection holds otherwise than `model` reads it.
   */
  #readable(model: Model, view: View, terms: readonly { readonly field: string }[]): View | Promise<View> {
    const named = model.declared.filter((f) => terms.some((t) => t.field === f.name));
    if (named.length === 0) return view;
    if (named.some((f) => view.retyped.has(f.name) || view.reparted.has(f.name))) throw modelChanged(model.name);
    if (!modelFileChanged(model)) return view;
    return this.#recordedOtherwise(model, named).then((other) => {
      if (other.size > 0) throw modelChanged(model.name);
      return view;
    });
  }

  /**
   * Those of `fields` of `model` that svc.counters records as another type, when the model's file
   * changed since it was read (none otherwise, without reading): another process on the file
   * prepared the collection for its newer model. It cannot tell which parts that model stores.
   */
  async #recordedOtherwise(model: Model, fields: Model['declared']): Promise<ReadonlySet<string>> {
    if (!modelFileChanged(model)) return NONE;
    const counter = await this.#counters.findOne({ _id: { $eq: model.name } }, { projection: { types: 1, canonicalDates: 1 } }).catch((e: unknown) => {
      throw storeError(e);
    });
    const recorded = recordedTypes(counter);
    return new Set(fields.filter((f) => !sameValues(recorded[fieldKey(model, f.name)], f.type)).map((f) => f.name));
  }

  /** `write`, counted among the writes of collection `name` under way until it is answered. */
  #issue<T>(name: string, write: Promise<T>): Promise<T> {
    let writing = this.#writing.get(name);
    if (writing === undefined) this.#writing.set(name, (writing = new Set()));
    const settled = write.then(
      () => undefined,
      () => undefined,
    );
    writing.add(settled);
    void settled.then(() => {
      writing.delete(settled);
      if (writing.size === 0 && this.#writing.get(name) === writing) this.#writing.delete(name);
    });
    return write;
  }

  /** The member `id`, while its `updated` is still `ifUpdated` when given. */
  #target(id: number, ifUpdated: string | undefined): Document {
    return ifUpdated === undefined ? { _id: { $eq: id } } : { _id: { $eq: id }, updated: { $eq: ifUpdated } };
  }

  /** Why a conditional write changed nothing: the member is gone, or it changed. */
  async #missReason(c: Collection<Stored>, id: number, ifUpdated: string | undefined): Promise<'not-found' | 'conflict'> {
    if (ifUpdated === undefined) return 'not-found';
    return (await c.findOne({ _id: { $eq: id } }, { projection: { _id: 1 } })) ? 'conflict' : 'not-found';
  }

  /**
   * Drops the compound indexes of `c` that its model no longer declares (`declared`), or declares
   * on other keys (an index made before its parts were stored had them left out).
   */
  async #dropUndeclared(c: Collection<Stored>, declared: readonly { name: string; key: Record<string, 1> }[]): Promise<void> {
    const keys = new Map(declared.map((d) => [d.name, JSON.stringify(d.key)]));
    const existing = await indexesOf(c);
    for (const index of existing) {
      const name = String(index.name);
      if (name.startsWith(COMPOUND_INDEX_PREFIX) && keys.get(name) !== JSON.stringify(index.key)) await c.dropIndex(name).catch(ignoreMissingIndex);
    }
  }

  /**
   * Drops kept indexes of removed fields until the model's indexes (`specs`) fit in the
   * MONGODB_MAX_INDEXES of a collection with those already there. A field removed from the model
   * keeps its index because another svc process on the same database may still run an earlier
   * model file that filters and orders by it (a rolling deploy); load.ts keeps
   * REMOVED_FIELD_INDEX_ROOM of the 64 free for them, so a valid model always gets its indexes and
   * the kept ones go only past that room. They go in the order their fields were last declared
   * by a process preparing the collection (`declared` in svc.counters, recorded here first), the
   * longest ago first: a field some running process still declares was declared at that process's
   * start, one removed several model versions ago before that. A kept index with no time recorded
   * (made before svc recorded them) goes first, in MongoDB's listing order. Indexes svc did not
   * make are never dropped: when they leave no room, this says so instead of failing in createIndexes.
   * Two processes that prepare different models of one collection at the same moment may both
   * count before either creates: MongoDB then refuses the second one's createIndexes, its request
   * fails, and its next one prepares again (a preparation that failed is forgotten) and finds room.
   */
  async #makeRoom(model: Model, c: Collection<Stored>, specs: readonly IndexSpec[]): Promise<void> {
    const counterId = { _id: { $eq: model.name } };
    const $currentDate = Object.fromEntries(model.declared.map((f) => [`declared.${fieldKey(model, f.name)}`, true] as const));
    const counter =
      model.declared.length === 0
        ? await this.#counters.findOne(counterId, { projection: { declared: 1 } })
        : await this.#counters.findOneAndUpdate(counterId, { $currentDate }, { upsert: true, returnDocument: 'after', projection: { declared: 1 } });
    const existing = await indexesOf(c);
    const present = new Set(['_id_', ...existing.map((i) => String(i.name))]);
    const wanted = new Set(specs.map((s) => s.name));
    const after = present.size + [...wanted].filter((name) => !present.has(name)).length;
    if (after <= MONGODB_MAX_INDEXES) return;
    const declared = counter?.declared ?? {};
    const lastDeclared = (key: string) => (declared[key] instanceof Date ? declared[key].getTime() : 0);
    const kept = existing
      .map((index) => ({ name: String(index.name), key: keptFieldKey(index) }))
      .filter((index): index is { name: string; key: string } => index.key !== undefined && !wanted.has(index.name))
      .sort((a, b) => lastDeclared(a.key) - lastDeclared(b.key)); // stable: ties keep the listing's order
    const over = after - MONGODB_MAX_INDEXES;
    if (kept.length < over) {
      const foreign = existing.map((i) => String(i.name)).filter((name) => name !== '_id_' && !wanted.has(name) && !kept.some((k) => k.name === name));
      throw new Error(
        `collection ${model.name}: MongoDB holds at most ${MONGODB_MAX_INDEXES} indexes a collection, and the model's ${wanted.size + 1} (the id's included) ` +
          `with the ${foreign.length} that svc did not make (${foreign.join(', ')}) are ${over - kept.length} too many: drop some of those, or index fewer fields`,
      );
    }
    for (const { name } of kept.slice(0, over)) await c.dropIndex(name).catch(ignoreMissingIndex);
  }

  /**
   * Rewrites, in each field's current type, the values an earlier type of the field left (a
   * number in a field that is text now): as reads give them (documents.ts `retyped`), so that
   * filters and orders compare them as the model says. A field's query finds only values of the
   * other types, in its index when it has one (a field declared `"index": false` is read whole,
   * once per process and model shape); each write is conditional on the value it replaces, so a
   * write made meanwhile is kept. Then the fields' types are recorded for the next process. The
   * record of a field whose type changed is removed first: a preparation cut before it records (the
   * connection lost, the process stopped, its model file changed again) leaves values of the new
   * type under no record, which the next preparation reads as any type, rather than under the old
   * type's, which would have it look for none of them (a date-time made a date, then a date-time
   * again, would keep the date's text, comparing as that).
   *
   * A number that an integer field cannot hold (a fraction or one past 2^53, left by a float;
   * `notInteger`) is of the type of one it can, and no index tells them apart: those are looked for
   * only when the recorded type of the field is not integer (or none is recorded), reading every
   * member that has a number there. Likewise text not in canonical form in a field made date or
   * date-time (a date-time with an offset, a date made date-time, text that is no date): every
   * member with text there is read when the recorded type is another.
   *
   * A value the new type cannot hold as it was (`"0123"` as 123, 5 as true, 1.5 as 2, `"abc"` as
   * absent) makes the member another one: it is stamped again (`updated`, as a write stamps it), so
   * that no entity tag names it as it was and as it is (a change back to the old model file would
   * give the old tag back). A value it holds as it was (5 as `"5"`) keeps its `updated`.
   */
  async #retype(model: Model, c: Collection<Stored>, current: () => void): Promise<Record<string, FieldType>> {
    const counter = await this.#counters.findOne({ _id: { $eq: model.name } }, { projection: { types: 1, canonicalDates: 1 } });
    const recorded = recordedTypes(counter);
    const retyping = model.declared.map((f) => [fieldKey(model, f.name), f.type] as const).filter(([key, type]) => recorded[key] !== undefined && recorded[key] !== type).map(([key]) => key);
    if (retyping.length > 0) {
      current();
      await this.#counters.updateOne({ _id: { $eq: model.name } }, { $unset: Object.fromEntries(retyping.map((key) => [`types.${key}`, ''] as const)) });
    }
    for (const f of model.declared) {
      const key = fieldKey(model, f.name);
      // Its stored parts go with the old value (#fillParts makes those the model stores again).
      const parts = Object.fromEntries(INDEX_PARTS.map((part) => [partKey(key, part), ''] as const));
      const other = { [key]: { $type: otherTypes(f.type) } };
      const dates = isDateType(f.type) && recorded[key] !== f.type;
      const query =
        f.type === 'integer' && recorded[key] !== 'integer' ? { $or: [other, notInteger(key)] } : dates ? { $or: [other, { [key]: { $type: 'string' } }] } : other;
      await rewrite(c, c.find(query, { projection: { [key]: 1, updated: 1 } }), current, (doc) => {
        const before = doc[key];
        const value = retyped(f.type, before);
        if (dates && value === before) return undefined; // text a date field holds as it is (a long read as a number is rewritten all the same)
        // Text in a field that was date or date-time was read as such: a date made date-time
        // reads back as the same date, also one a process on an older model file wrote as text
        // not in canonical form (as SQLite's canonicalDates compares the value a read gave).
        const wasDate = typeof before === 'string' && isDateType(recorded[key]);
        const held = wasDate ? recorded[key] : typeOfValue(before);
        const read = wasDate ? retyped(held!, before) : before;
        const lossy = read === undefined || !readsBackAs(held, value, read);
        const filter = { _id: { $eq: doc._id }, [key]: { $eq: before }, ...(lossy ? { updated: { $eq: doc.updated } } : {}) };
        const $set = { ...(value === undefined ? {} : { [key]: value }), ...(lossy ? { updated: nextUpdated(doc.updated) } : {}) };
        const $unset = value === undefined ? { ...parts, [key]: '' as const } : parts;
        return { updateOne: { filter, update: Object.keys($set).length > 0 ? { $set, $unset } : { $unset } } };
      });
    }
    // The declared fields' types; a field the model no longer declares keeps the type recorded for
    // it, as its values do (as svc_fields keeps it in SQLite): one that comes back as another type
    // reads them as of that type (a date made date-time reads back as the same date).
    const types = Object.fromEntries(model.declared.map((f) => [fieldKey(model, f.name), f.type]));
    // Those of fields no longer declared as read above: a date type an older svc recorded is a string's.
    const all = { ...recorded, ...types } as Record<string, FieldType>;
    // Written only when it changes: most preparations find the types they would record.
    const same = counter?.canonicalDates === true && Object.entries(types).every(([k, type]) => recorded[k] === type);
    if (!same) {
      const $set = { ...Object.fromEntries(Object.entries(all).map(([k, type]) => [`types.${k}`, type])), canonicalDates: true };
      current();
      await this.#counters.updateOne({ _id: { $eq: model.name } }, { $set }, { upsert: true });
    }
    return all;
  }

  /**
   * Stores the parts the model's indexes name in the documents that lack them (written before the
   * index was declared, or by a process on an older model file): from the field's text, each write
   * conditional on the field's value. A part that leads an index is looked for in it; otherwise
   * every member is read, once per process and model shape.
   */
  async #fillParts(model: Model, c: Collection<Stored>, current: () => void): Promise<void> {
    for (const { field, part, key } of storedParts(model)) {
      const source = fieldKey(model, field);
      await rewrite(c, c.find({ [key]: { $exists: false }, [source]: { $type: 'string' } }, { projection: { [source]: 1 } }), current, (doc) => {
        const filter = { _id: { $eq: doc._id }, [source]: { $eq: doc[source] }, [key]: { $exists: false } };
        return { updateOne: { filter, update: { $set: { [key]: partText(doc[source], part)! } } } };
      });
    }
  }

  /** The next id of `model`: one atomic increment, safe with any number of svc processes on the database. */
  async #nextId(model: Model): Promise<number> {
    const counter = await this.#counters.findOneAndUpdate({ _id: { $eq: model.name } }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
    return counter!.seq;
  }

  /** Moves the counter of `model` to at least the highest id in its collection. */
  async #catchUp(model: Model, c: Collection<Stored>): Promise<void> {
    const [last] = await c.find({}, { sort: { _id: -1 }, limit: 1, projection: { _id: 1 } }).toArray();
    if (last) await this.#counters.updateOne({ _id: { $eq: model.name } }, { $max: { seq: last._id } }, { upsert: true });
  }

  /**
   * The collection of `model`, prepared once per model shape: an index per declared field and on
   * `updated`, each `(field, _id)` so that an order and its tie-break are read from the index, and
   * NEWEST_FIRST;
   * none for a field declared `"index": false` (dropped if it had one). Indexes of removed fields
   * stay (as their values do) while MongoDB has room for them (#makeRoom). Then the values an
   * earlier type of a field left are rewritten.
   */
  #collection(model: Model): Promise<Collection<Stored>> {
    try {
      return this.#entry(model).ready;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** #collection's preparation of `model`: the one it is current with, or a new one; throws when there can be none. */
  #entry(model: Model): Prepared {
    if (this.#closed) throw new Error('the store is closed');
    const known = this.#byModel.get(model);
    // Still current: a preparation that failed is forgotten, and the next operation tries again.
    if (known && this.#collections.get(model.name) === known) return known;
    const signature = modelSignature(model);
    let entry = this.#collections.get(model.name);
    if (entry?.signature !== signature) {
      // A request holds the model it read when it began: one whose file changed since may be older
      // than the model another request (or process) prepared the collection for meanwhile.
      // Prepared for it, the collection would go back: values rewritten in the old types (a
      // date-time made a date again loses its time), the old types recorded for the next process,
      // the newer model's indexes dropped; and the newer model prepared again by the next request.
      assertModelCurrent(model);
      entry = this.#prepare(model, signature, entry);
      this.#collections.set(model.name, entry);
    }
    this.#byModel.set(model, entry);
    return entry;
  }

  /**
   * The preparation of `model`'s collection, once `previous` (the one under way for another model
   * of the name, if any) has settled: two preparations of one collection never run interleaved (one
   * model's rewrites between another's). Before each step that changes the collection, the model
   * must still be its file (model-changed otherwise): a file changed while this preparation waited
   * or ran has a newer model, which the next request (of this process, or of another on the same
   * file) prepares for, and which this one must not undo. Another process, on another copy of the
   * file, may still prepare for its own model at the same time (a rolling deploy; README "Models").
   */
  #prepare(model: Model, signature: string, previous: Prepared | undefined): Prepared {
    const c = this.#db.collection<Stored>(model.name);
    // Writes issued under the model before are answered before this rewrites any value: run after
    // the rewrite read the collection, one would leave a value of the old type (#writable refuses
    // those issued from now on).
    const writing = [...(this.#writing.get(model.name) ?? [])];
    const keys = ['updated', ...model.declared.filter((f) => f.index !== false).map((f) => fieldKey(model, f.name))];
    const unindexed = model.declared.filter((f) => f.index === false).map((f) => fieldKey(model, f.name));
    const compound = compoundIndexes(model);
    const specs: IndexSpec[] = [...keys.map((k): IndexSpec => ({ name: fieldIndexName(k), key: { [k]: 1, _id: 1 } })), NEWEST_FIRST, ...compound];
    const current = (): void => assertModelCurrent(model);
    const ready = Promise.all([
      previous?.ready.then(
        () => undefined,
        () => undefined,
      ),
      ...writing,
    ])
      .then(() => this.#connect())
      .then(current)
      // Drops first: MongoDB refuses an index on the keys of an existing one under another name
      // (a compound index declared on one field whose own index was just turned off, say).
      .then(() => this.#dropUndeclared(c, compound))
      .then(current)
      .then(() => Promise.all(unindexed.map((k) => c.dropIndex(fieldIndexName(k)).catch(ignoreMissingIndex))))
      .then(current)
      .then(() => this.#makeRoom(model, c, specs))
      .then(current)
      .then(() => c.createIndexes(specs))
      .then(() => this.#retype(model, c, current))
      .then((types) => {
        prepared.types = types;
        return this.#fillParts(model, c, current);
      })
      .then(
        () => c,
        (e: unknown) => {
          if (this.#collections.get(model.name) === prepared) this.#collections.delete(model.name);
          throw storeError(e);
        },
      );
    const prepared: Prepared = {
      model,
      signature,
      ready,
      view: ready.then((collection): View => ({ c: collection, entry: prepared, of: model, retyped: NONE, reparted: NONE })),
    };
    prepared.view.catch(() => {}); // its rejection is ready's, which the operations waiting on it are given
    return prepared;
  }
}

/**
 * `{updated: -1, _id: 1}`: newest first, ties by id, the Atom feed's default order and a list's
 * usual `order_by=-updated`. MongoDB reads a sort from an index only in the index's directions or
 * all of them reversed (https://www.mongodb.com/docs/manual/tutorial/sort-results-with-indexes/),
 * and `{updated: 1, _id: 1}` reversed is `{updated: -1, _id: -1}`: without this, every such page
 * sorted every member. Other descending orders still sort their matches (README "Collection queries").
 */
const NEWEST_FIRST: IndexSpec = { name: 'updated_-1__id_1', key: { updated: -1, _id: 1 } };

/** The indexes of `c` as listIndexes gives them; none for a collection not created yet. */
function indexesOf(c: Collection<Stored>): Promise<Document[]> {
  return c
    .listIndexes()
    .toArray()
    .catch((e: unknown) => {
      ignoreMissingIndex(e);
      return [];
    });
}

/** An index as createIndexes takes it, named (the names are what #makeRoom counts). */
interface IndexSpec {
  readonly name: string;
  readonly key: Record<string, 1 | -1>;
}

/** The name of a field's own index `{<key>: 1, _id: 1}`: the one the driver gives it (as earlier versions of svc let it). */
function fieldIndexName(key: string): string {
  return `${key}_1__id_1`;
}

/** The document key of `index` when it is a field's own index as svc makes it (not `updated`'s), else undefined. */
function keptFieldKey(index: Document): string | undefined {
  const entries = Object.entries((index.key ?? {}) as Record<string, unknown>);
  if (entries.length !== 2 || entries[1]![0] !== '_id' || entries[1]![1] !== 1 || entries[0]![1] !== 1) return undefined;
  const key = entries[0]![0];
  return key !== 'updated' && index.name === fieldIndexName(key) ? key : undefined;
}

/** Prefix of the names of the compound indexes a model declares (README "Models", `indexes`). */
export const COMPOUND_INDEX_PREFIX = 'svc+';

/**
 * The compound indexes `model` declares, as createIndexes specs: its keys' document keys in order
 * (a month or day key is the part the documents store, documents.ts `StoredPart`), then `_id`,
 * named `svc+<keys as declared>`.
 */
export function compoundIndexes(model: Model): { name: string; key: Record<string, 1> }[] {
  // MongoDB refuses a second index on the same keys: one that would come out as a field's own
  // index or as an earlier one (load.ts refuses both in a model file) is left to that index.
  const taken = new Set(model.declared.filter((f) => f.index !== false).map((f) => JSON.stringify([fieldKey(model, f.name)])));
  const specs: { name: string; key: Record<string, 1> }[] = [];
  for (const index of model.indexes) {
    const fields = [...new Set(index.keys.map(({ field, part }) => (part === undefined ? fieldKey(model, field) : partKey(fieldKey(model, field), part))))];
    const signature = JSON.stringify(fields);
    if (fields.length === 0 || taken.has(signature)) continue;
    taken.add(signature);
    specs.push({ name: COMPOUND_INDEX_PREFIX + index.name, key: Object.fromEntries([...fields.map((f) => [f, 1] as const), ['_id', 1] as const]) });
  }
  return specs;
}

/**
 * The query for a number at `key` that is no integer a write accepts: a fraction or one past
 * ±(2^53-1) in a double, NaN, and any long or decimal (numbers svc does not write: read by the
 * same rule, documents.ts `retyped`, and rewritten in the form svc writes).
 */
function notInteger(key: string): Document {
  return {
    $or: [
      { [key]: { $type: ['long', 'decimal'] } },
      { [key]: NaN },
      { [key]: { $type: 'double' }, $expr: { $or: [{ $ne: [`$${key}`, { $trunc: [`$${key}`, 0] }] }, { $gt: [{ $abs: `$${key}` }, Number.MAX_SAFE_INTEGER] }] } },
    ],
  };
}

/** Applies `update` to each document of `docs`, REWRITE_BATCH at a time in unordered bulk writes, each once `current` (which throws otherwise) says they still may be. */
async function rewrite(
  c: Collection<Stored>,
  docs: AsyncIterable<Stored>,
  current: () => void,
  update: (doc: Stored) => AnyBulkWriteOperation<Stored> | undefined,
): Promise<void> {
  let batch: AnyBulkWriteOperation<Stored>[] = [];
  for await (const doc of docs) {
    const op = update(doc);
    if (op === undefined) continue;
    batch.push(op);
    if (batch.length >= REWRITE_BATCH) {
      current();
      await c.bulkWrite(batch, { ordered: false });
      batch = [];
    }
  }
  if (batch.length === 0) return;
  current();
  await c.bulkWrite(batch, { ordered: false });
}

/** Whether values stored as `recorded` are those a field of `type` writes and filters (`string` and `text` hold the same); an unrecorded type is taken to be. */
function sameValues(recorded: FieldType | undefined, type: FieldType): boolean {
  const held = (t: FieldType) => (t === 'text' ? 'string' : t);
  return recorded === undefined || held(recorded) === held(type);
}

/**
 * The fields of `model` (a model of before) that the collection, as `now` prepared it, holds
 * otherwise than `model` writes and reads them (View): as another type, or, where `now`'s model
 * declares the field, without a part `model` stores (a write under `now`'s model clears it, and a
 * filter under `model` reads it; one that `model` does not store it computes from the field).
 */
function changedFields(model: Model, now: Prepared): { retyped: ReadonlySet<string>; reparted: ReadonlySet<string> } {
  const kept = new Set(storedParts(now.model).map((p) => p.key));
  const retyped = new Set<string>();
  const reparted = new Set<string>();
  for (const f of model.declared) {
    if (!sameValues(now.types?.[fieldKey(model, f.name)], f.type)) retyped.add(f.name);
    else if (now.model.declared.some((d) => d.name === f.name) && storedParts(model).some((p) => p.field === f.name && !kept.has(p.key))) reparted.add(f.name);
  }
  return { retyped, reparted };
}

/**
 * The types svc.counters records for a collection's fields, by document key, as its values hold
 * them: a date type recorded by an svc that kept a date field's text as it was is a string's, as
 * that svc served them.
 */
function recordedTypes(counter: Pick<CounterDocument, 'types' | 'canonicalDates'> | null): Record<string, FieldType> {
  return Object.fromEntries(Object.entries(counter?.types ?? {}).map(([k, type]) => [k, counter?.canonicalDates !== true && isDateType(type) ? 'string' : type]));
}

/** The `maxTimeMS` of a read: whole milliseconds, at least 1 (0 would mean no limit). */
function readTime(options: ReadOptions): number {
  return Math.max(1, Math.ceil(options.timeMs ?? DEFAULT_STORE_TIME_MS));
}
