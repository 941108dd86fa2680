// An in-process MongoDB test server: the wire protocol over TCP, each command run through mingo over memory.
//
// Why: no mongod can run in CI, and the old mongodb-mock-server cannot parse OP_MSG, the only framing
// current drivers send. With this server the real `mongodb` driver runs end to end.
//
// What it proves: that the driver is used correctly (connection, handshake, command shapes as the
// driver really sends them — see `commands`), cursor handling (firstBatch, getMore, killCursors,
// batchSize), error handling (write errors such as E11000, command errors, a server that goes away
// and comes back on the same port), and query/update/aggregation semantics as mingo, an independent
// implementation of MongoDB's query language, understands them.
//
// What only a real server can prove: that indexes are used (they are recorded, never used; only the
// _id index is unique), write concerns and journaling, replica-set behaviour (elections, retryable
// writes, transactions, change streams: this server presents itself as a standalone), authentication
// (none), and where mingo departs from MongoDB: comparison across BSON type brackets (null vs. missing,
// numbers vs. strings; a spot check of $gt, $lt and $ne: null agreed in mingo 7.2) and the sort order
// of arrays (MongoDB sorts by the smallest element ascending, the largest descending; mingo does not).
//
// Wire: OP_MSG (2013) with a kind 0 body and kind 1 document sequences; the checksumPresent flag is
// honoured by skipping the trailing CRC-32C (not verified). The v7 driver opens every connection with
// a legacy OP_QUERY `isMaster` on admin.$cmd (it cannot know the server speaks OP_MSG before the
// handshake; only with `serverApi` set does it send an OP_MSG `hello`), answered with OP_REPLY. No
// compression is offered, and hello has no topologyVersion, so the driver's monitors poll.

import { EventEmitter } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { BSON, EJSON, Long, ObjectId, type Document } from 'bson';
import { Aggregator, Query, update as applyOperators } from 'mingo';

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const CHECKSUM_PRESENT = 1 << 0;
const MORE_TO_COME = 1 << 1;
/** MongoDB 8.0. The v7 driver accepts 9 (MIN_SUPPORTED_WIRE_VERSION, MongoDB 4.4) up to 29. */
const MAX_WIRE_VERSION = 25;
/** Indexes in one collection, `_id`'s included: MongoDB refuses the 65th (createIndexes below). */
const MAX_INDEXES = 64;
/** Documents in a first batch when the command gives no batchSize, as on a real server. */
const DEFAULT_FIRST_BATCH = 101;

/** One command as the server received it; document sequences are merged into `command`. */
export interface CommandRecord {
  readonly name: string;
  readonly db: string;
  readonly collection?: string;
  readonly filter?: Document;
  readonly sort?: Document;
  readonly skip?: number;
  readonly limit?: number;
  readonly command: Document;
}

/** Starts a server on 127.0.0.1; port 0 (the default) takes any free port. */
export async function startMongoWireServer(options: { port?: number } = {}): Promise<MongoWireServer> {
  const server = new MongoWireServer(options.port ?? 0);
  await server.start();
  return server;
}

/** Emits 'command' (a CommandRecord) as each command arrives, before it runs. */
export class MongoWireServer extends EventEmitter<{ command: [CommandRecord] }> {
  /** Every command received except hello/isMaster (the driver's monitors send those at any time). */
  readonly commands: CommandRecord[] = [];
  readonly #data = new Memory();
  readonly #sockets = new Set<Socket>();
  #listener: Server | undefined;
  #holds: Hold[] = [];
  #port: number;
  #connections = 0;

  constructor(port = 0) {
    super();
    this.#port = port;
  }

  get port(): number {
    return this.#port;
  }

  /** `mongodb://127.0.0.1:<port>/` */
  get uri(): string {
    return `mongodb://127.0.0.1:${this.#port}/`;
  }

  /** Listens (again) on the same port with the data kept, like a restarted server. */
  async start(): Promise<void> {
    if (this.#listener) return;
    const listener = createServer((socket) => this.#accept(socket));
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(this.#port, '127.0.0.1', resolve);
    });
    this.#listener = listener;
    this.#port = (listener.address() as { port: number }).port;
  }

  /** Closes the listener and destroys every open connection: the database goes away. Cursors are lost. */
  async stop(): Promise<void> {
    const listener = this.#listener;
    if (!listener) return;
    this.#listener = undefined;
    const closed = new Promise((resolve) => listener.close(resolve));
    for (const socket of this.#sockets) socket.destroy();
    this.#data.cursors.clear();
    await closed;
  }

  /** Copies of the stored documents of a collection, in natural order. */
  documents(db: string, collection: string): Document[] {
    return [...(this.#data.collection(db, collection)?.docs.values() ?? [])].map(copy);
  }

  /**
   * Holds the next command that `match` selects (hello and isMaster excepted) on its connection:
   * before it runs, or with `reply`, after it ran, its reply not sent. Either way nothing more is
   * read from that connection until `release()` (other connections go on). `reached` resolves
   * when the command arrives. With `stop()`, a command held before it runs never runs, and one
   * held for its reply ran, but the client never learns it did (a connection cut mid-operation).
   */
  hold(match: (command: CommandRecord) => boolean, { reply = false }: { reply?: boolean } = {}): Held {
    let arrived!: (command: CommandRecord) => void;
    const reached = new Promise<CommandRecord>((resolve) => (arrived = resolve));
    const hold: Hold = { match, reply, arrived };
    this.#holds.push(hold);
    return {
      reached,
      release: () => {
        this.#holds = this.#holds.filter((h) => h !== hold);
        const resume = hold.resume;
        hold.resume = () => {};
        resume?.();
      },
    };
  }

  #accept(socket: Socket): void {
    const connectionId = ++this.#connections;
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending: Buffer = Buffer.alloc(0);
    let held = false;
    const drain = (): void => {
      while (!held && pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const message = pending.subarray(0, pending.readInt32LE(0));
        pending = pending.subarray(message.length);
        try {
          if (message.length < 16) throw new Error(`message length ${message.length}`);
          const request = parseMessage(message);
          const hold = this.#holdFor(request);
          // Held before it runs: it runs on release. Held for its reply: it runs now, the reply waits.
          const reply = hold && !hold.reply ? undefined : this.#reply(request, connectionId);
          if (hold) {
            held = true;
            hold.resume = () => {
              held = false;
              if (socket.destroyed) return;
              const answer = hold.reply ? reply : this.#reply(request, connectionId);
              if (answer) socket.write(answer);
              drain();
            };
            hold.arrived(record(commandName(request.command), request.db, request.command));
            return;
          }
          if (reply) socket.write(reply);
        } catch {
          return void socket.destroy(); // unparseable: a real server closes the connection too
        }
      }
    };
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      drain();
    });
  }

  /** The hold that `request` meets first, taken off the list; never for hello. */
  #holdFor(request: Request): Hold | undefined {
    const name = commandName(request.command);
    if (HELLO.has(name)) return undefined;
    const entry = record(name, request.db, request.command);
    const hold = this.#holds.find((h) => h.match(entry));
    if (hold) this.#holds = this.#holds.filter((h) => h !== hold);
    return hold;
  }

  /** Runs the command of `request`; its reply, framed as the request was (none for moreToCome). */
  #reply(request: Request, connectionId: number): Buffer | undefined {
    const { requestId, opCode, flags, command, db } = request;
    if (opCode === OP_MSG) {
      const reply = this.#run(command, db, connectionId);
      // flagBits (uint32) = 0, then one kind 0 section
      return flags & MORE_TO_COME ? undefined : frame(OP_MSG, requestId, [Buffer.alloc(5), BSON.serialize(reply)]);
    }
    const reply = request.cmd
      ? this.#run(command, db, connectionId)
      : { ok: 0, errmsg: 'OP_QUERY is only answered for commands', code: 352, codeName: 'UnsupportedOpQueryCommand' };
    // responseFlags (int32), cursorID (int64), startingFrom (int32), numberReturned (int32) = 1
    const head = Buffer.alloc(20);
    head.writeInt32LE(1, 16);
    return frame(OP_REPLY, requestId, [head, BSON.serialize(reply)]);
  }

  #run(command: Document, db: string, connectionId: number): Document {
    const name = commandName(command);
    if (HELLO.has(name)) return hello(connectionId);
    const entry = record(name, db, command);
    this.commands.push(entry);
    this.emit('command', entry);
    try {
      const handler = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
      if (!handler) throw new CommandError(59, 'CommandNotFound', `no such command: '${name}'`);
      return { ...handler(this.#data, db, command), ok: 1 };
    } catch (error) {
      if (error instanceof CommandError) return { ok: 0, errmsg: error.message, code: error.code, codeName: error.codeName };
      return { ok: 0, errmsg: (error as Error).message, code: 2, codeName: 'BadValue' };
    }
  }
}

// ---- framing

/** A command held by `MongoWireServer.hold()`. */
export interface Held {
  /** Resolves when the command arrives (held before it runs, or after it ran with `reply`). */
  readonly reached: Promise<CommandRecord>;
  /** Runs it (or sends its reply), and reads its connection on. */
  release(): void;
}

interface Hold {
  readonly match: (command: CommandRecord) => boolean;
  readonly reply: boolean;
  readonly arrived: (command: CommandRecord) => void;
  /** Set once a command met it: goes on with the connection. */
  resume?: () => void;
}

/** A request as read from the wire: its command, and how to frame the reply. */
interface Request {
  readonly requestId: number;
  readonly opCode: number;
  readonly flags: number;
  readonly command: Document;
  readonly db: string;
  /** For OP_QUERY: whether it names a command (`<db>.$cmd`). */
  readonly cmd: boolean;
}

function parseMessage(message: Buffer): Request {
  const requestId = message.readInt32LE(4);
  const opCode = message.readInt32LE(12);
  if (opCode === OP_MSG) {
    const flags = message.readUInt32LE(16);
    const command = parseOpMsg(message, flags);
    return { requestId, opCode, flags, command, db: String(command.$db), cmd: true };
  }
  if (opCode === OP_QUERY) {
    // flags (int32), fullCollectionName (cstring), numberToSkip (int32), numberToReturn (int32), query
    const nameEnd = message.indexOf(0, 20);
    const ns = message.toString('utf8', 20, nameEnd);
    const at = nameEnd + 9;
    const command = BSON.deserialize(message.subarray(at, at + message.readInt32LE(at)));
    const cmd = ns.endsWith('.$cmd');
    return { requestId, opCode, flags: 0, command, db: cmd ? ns.slice(0, -'.$cmd'.length) : ns, cmd };
  }
  throw new Error(`opCode ${opCode}`);
}

function commandName(command: Document): string {
  return Object.keys(command)[0] ?? '';
}

function parseOpMsg(message: Buffer, flags: number): Document {
  const end = message.length - (flags & CHECKSUM_PRESENT ? 4 : 0);
  let body: Document | undefined;
  const sequences: Document = {};
  for (let at = 20; at < end; ) {
    const kind = message[at++];
    const size = message.readInt32LE(at);
    if (kind === 0) {
      body = BSON.deserialize(message.subarray(at, at + size));
    } else if (kind === 1) {
      // int32 size (including itself), cstring identifier, then documents up to size
      const nameEnd = message.indexOf(0, at + 4);
      const docs: Document[] = (sequences[message.toString('utf8', at + 4, nameEnd)] = []);
      for (let doc = nameEnd + 1; doc < at + size; doc += message.readInt32LE(doc)) {
        docs.push(BSON.deserialize(message.subarray(doc, doc + message.readInt32LE(doc))));
      }
    } else {
      throw new Error(`OP_MSG section kind ${kind}`);
    }
    at += size;
  }
  if (!body) throw new Error('OP_MSG without a body section');
  return { ...body, ...sequences };
}

/** A message: header (length, requestID, responseTo, opCode), then the parts. */
function frame(opCode: number, responseTo: number, parts: Uint8Array[]): Buffer {
  const header = Buffer.alloc(16);
  const length = parts.reduce((sum, part) => sum + part.length, header.length);
  header.writeInt32LE(length, 0);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(opCode, 12);
  return Buffer.concat([header, ...parts], length);
}

// ---- data

/** What one update statement did: the matched documents, their new versions, or the one upserted. */
interface Updated {
  readonly before: Document[];
  readonly after: Document[];
  readonly upserted?: Document;
}

interface Collection {
  /** Documents by _id key, in insertion order (the natural order). Stored documents are never mutated. */
  readonly docs: Map<string, Document>;
  readonly indexes: Document[];
}

class Memory {
  readonly dbs = new Map<string, Map<string, Collection>>();
  readonly cursors = new Map<number, { ns: string; rest: Document[] }>();
  #nextCursor = 0;

  collection(db: string, name: string, create = false): Collection | undefined {
    let colls = this.dbs.get(db);
    if (!colls && create) this.dbs.set(db, (colls = new Map()));
    let coll = colls?.get(name);
    if (!coll && create) colls!.set(name, (coll = { docs: new Map(), indexes: [] }));
    return coll;
  }

  /** A cursor reply: the first batch, and a cursor id for the rest unless it fits (or must fit). */
  cursor(ns: string, results: Document[], batchSize: number | undefined, singleBatch = false): Document {
    const size = batchSize || DEFAULT_FIRST_BATCH;
    let id = 0;
    if (results.length > size && !singleBatch) this.cursors.set((id = ++this.#nextCursor), { ns, rest: results.slice(size) });
    return { cursor: { id: Long.fromNumber(id), ns, firstBatch: results.slice(0, size) } };
  }

  /** Stores a new document (an _id is added first when absent), or throws E11000 for a duplicate _id. */
  insert(ns: string, coll: Collection, doc: Document): Document {
    const { _id = new ObjectId(), ...fields } = doc;
    const stored = { _id, ...fields };
    const key = keyOf(stored._id);
    if (coll.docs.has(key)) {
      const dup = `{ _id: ${EJSON.stringify(stored._id)} }`;
      throw new CommandError(11000, 'DuplicateKey', `E11000 duplicate key error collection: ${ns} index: _id_ dup key: ${dup}`);
    }
    coll.docs.set(key, stored);
    return stored;
  }

  /** One update statement, as `update` and `findAndModify` share it. */
  update(ns: string, coll: Collection, q: Document, u: Document | Document[], o: Document): Updated {
    const before = select(coll, q, { sort: o.sort, limit: o.multi ? 0 : 1, collation: o.collation });
    if (before.length === 0 && o.upsert) {
      // Operator updates start from the query's equalities; a replacement only takes its _id.
      const seed = seedFrom(q);
      const start = Array.isArray(u) || isOperators(u) ? seed : seed._id === undefined ? {} : { _id: seed._id };
      const upserted = this.insert(ns, coll, applyUpdate(start, u, o.arrayFilters, true));
      return { before, after: [upserted], upserted };
    }
    const after = before.map((doc) => {
      const next = applyUpdate(doc, u, o.arrayFilters, false);
      coll.docs.set(keyOf(doc._id), next);
      return next;
    });
    return { before, after };
  }
}

class CommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  constructor(code: number, codeName: string, message: string) {
    super(message);
    this.code = code;
    this.codeName = codeName;
  }
}

// ---- commands

const HELLO = new Set(['hello', 'isMaster', 'ismaster']);

function hello(connectionId: number): Document {
  return {
    helloOk: true,
    ismaster: true,
    isWritablePrimary: true,
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: 48_000_000,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
}

function record(name: string, db: string, command: Document): CommandRecord {
  const target = command[name];
  const collection = typeof target === 'string' ? target : name === 'getMore' ? command.collection : undefined;
  const { filter = command.query, sort, skip, limit } = command;
  return { name, db, collection, filter, sort, skip, limit, command };
}

/** Each handler returns its reply without `ok: 1` and throws CommandError for an error reply. */
const COMMANDS: Record<string, (m: Memory, db: string, cmd: Document) => Document> = {
  ping: () => ({}),
  buildInfo: () => ({ version: '8.0.0', versionArray: [8, 0, 0, 0], maxBsonObjectSize: 16 * 1024 * 1024 }),
  endSessions: () => ({}),

  find(m, db, cmd) {
    const coll = m.collection(db, cmd.find);
    const { filter = {}, sort, skip, limit = 0, projection, collation } = cmd;
    const results = coll ? select(coll, filter, { sort, skip, limit: Math.abs(limit), projection, collation }) : [];
    return m.cursor(`${db}.${cmd.find}`, results, cmd.batchSize, cmd.singleBatch === true || limit < 0);
  },

  getMore(m, _db, cmd) {
    const id = Number(cmd.getMore);
    const cursor = m.cursors.get(id);
    if (!cursor) throw new CommandError(43, 'CursorNotFound', `cursor id ${id} not found`);
    const nextBatch = cursor.rest.splice(0, cmd.batchSize || cursor.rest.length);
    if (cursor.rest.length === 0) m.cursors.delete(id);
    return { cursor: { id: Long.fromNumber(m.cursors.has(id) ? id : 0), ns: cursor.ns, nextBatch } };
  },

  killCursors(m, _db, cmd) {
    const ids: number[] = cmd.cursors.map(Number);
    const killed = ids.filter((id) => m.cursors.delete(id));
    const notFound = ids.filter((id) => !killed.includes(id));
    const longs = (list: number[]) => list.map((id) => Long.fromNumber(id));
    return { cursorsKilled: longs(killed), cursorsNotFound: longs(notFound), cursorsAlive: [], cursorsUnknown: [] };
  },

  insert(m, db, cmd) {
    const ns = `${db}.${cmd.insert}`;
    const coll = m.collection(db, cmd.insert, true)!;
    return writeEach(cmd, cmd.documents, (doc) => (m.insert(ns, coll, doc), 1));
  },

  update(m, db, cmd) {
    const ns = `${db}.${cmd.update}`;
    const coll = m.collection(db, cmd.update, true)!;
    let nModified = 0;
    const upserted: Document[] = [];
    const reply = writeEach(cmd, cmd.updates, (s, index) => {
      const { before, after, upserted: created } = m.update(ns, coll, s.q, s.u, s);
      if (created) upserted.push({ index, _id: created._id });
      nModified += before.filter((doc, i) => !sameDocument(doc, after[i])).length;
      return after.length;
    });
    return { ...reply, nModified, ...(upserted.length ? { upserted } : {}) };
  },

  delete(m, db, cmd) {
    const coll = m.collection(db, cmd.delete);
    return writeEach(cmd, cmd.deletes, (s) => {
      const doomed = coll ? select(coll, s.q, { limit: s.limit === 1 ? 1 : 0, collation: s.collation }) : [];
      for (const doc of doomed) coll!.docs.delete(keyOf(doc._id));
      return doomed.length;
    });
  },

  findAndModify(m, db, cmd) {
    const ns = `${db}.${cmd.findAndModify}`;
    const coll = m.collection(db, cmd.findAndModify, true)!;
    const { query = {}, sort, fields, collation } = cmd;
    if (cmd.remove) {
      const [doc] = select(coll, query, { sort, limit: 1, collation });
      if (doc) coll.docs.delete(keyOf(doc._id));
      return { lastErrorObject: { n: doc ? 1 : 0 }, value: project(doc, fields) };
    }
    const { upsert, arrayFilters } = cmd;
    const { before, after, upserted } = m.update(ns, coll, query, cmd.update, { sort, upsert, arrayFilters, collation });
    const lastErrorObject = { n: after.length, updatedExisting: before.length > 0, ...(upserted ? { upserted: upserted._id } : {}) };
    return { lastErrorObject, value: project(cmd.new ? after[0] : before[0], fields) };
  },

  aggregate(m, db, cmd) {
    const docs = [...(m.collection(db, cmd.aggregate)?.docs.values() ?? [])];
    const results = new Aggregator(cmd.pipeline, queryOptions(cmd.collation)).run(docs);
    return m.cursor(`${db}.${cmd.aggregate}`, results, cmd.cursor?.batchSize);
  },

  count(m, db, cmd) {
    const coll = m.collection(db, cmd.count);
    const { query = {}, skip, limit = 0, collation } = cmd;
    return { n: coll ? select(coll, query, { skip, limit: Math.abs(limit), collation }).length : 0 };
  },

  create(m, db, cmd) {
    if (m.collection(db, cmd.create)) throw new CommandError(48, 'NamespaceExists', `Collection ${db}.${cmd.create} already exists.`);
    m.collection(db, cmd.create, true);
    return {};
  },

  createIndexes(m, db, cmd) {
    const createdCollectionAutomatically = !m.collection(db, cmd.createIndexes);
    const coll = m.collection(db, cmd.createIndexes, true)!;
    const numIndexesBefore = coll.indexes.length + 1;
    // As MongoDB: the same keys under another name, or another key under the same name, is refused
    // (https://www.mongodb.com/docs/manual/reference/command/createIndexes/); the same index again is nothing.
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const added: Document[] = [];
    for (const index of cmd.indexes) {
      const named = [...coll.indexes, ...added].find((i) => i.name === index.name);
      if (named && !same(named.key, index.key)) throw new CommandError(86, 'IndexKeySpecsConflict', `An existing index has the same name as the requested index: ${index.name}`);
      const keyed = [{ key: { _id: 1 }, name: '_id_' }, ...coll.indexes, ...added].find((i) => same(i.key, index.key));
      if (keyed && keyed.name !== index.name) throw new CommandError(85, 'IndexOptionsConflict', `Index already exists with a different name: ${keyed.name}`);
      // As MongoDB: at most 64 indexes in a collection, _id's included (IndexCatalogImpl's
      // kMaxNumIndexesAllowed; https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-Number-of-Indexes-per-Collection).
      // The command is refused whole, none of its indexes made: what a real server does with the
      // specs of one command that go past the limit part way is assumed here, not observed.
      if (!named && numIndexesBefore + added.length >= MAX_INDEXES) {
        throw new CommandError(67, 'CannotCreateIndex', `add index fails, too many indexes for ${db}.${cmd.createIndexes} key:${EJSON.stringify(index.key)}`);
      }
      if (!named) added.push({ v: 2, ...index });
    }
    coll.indexes.push(...added);
    return { createdCollectionAutomatically, numIndexesBefore, numIndexesAfter: coll.indexes.length + 1 };
  },

  dropIndexes(m, db, cmd) {
    const coll = m.collection(db, cmd.dropIndexes);
    if (!coll) throw new CommandError(26, 'NamespaceNotFound', `ns not found ${db}.${cmd.dropIndexes}`);
    const at = coll.indexes.findIndex((i) => i.name === cmd.index);
    if (at === -1) throw new CommandError(27, 'IndexNotFound', `index not found with name [${cmd.index}]`);
    const nIndexesWas = coll.indexes.length + 1;
    coll.indexes.splice(at, 1);
    return { nIndexesWas };
  },

  listIndexes(m, db, cmd) {
    const coll = m.collection(db, cmd.listIndexes);
    if (!coll) throw new CommandError(26, 'NamespaceNotFound', `ns does not exist: ${db}.${cmd.listIndexes}`);
    const indexes = [{ v: 2, key: { _id: 1 }, name: '_id_' }, ...coll.indexes];
    return m.cursor(`${db}.$cmd.listIndexes.${cmd.listIndexes}`, indexes, cmd.cursor?.batchSize);
  },

  listCollections(m, db, cmd) {
    const all = [...(m.dbs.get(db)?.keys() ?? [])].map((name) => ({ name, type: 'collection', options: {}, info: { readOnly: false } }));
    return m.cursor(`${db}.$cmd.listCollections`, new Query(cmd.filter ?? {}).find(all).all() as Document[], cmd.cursor?.batchSize);
  },

  listDatabases(m) {
    return { databases: [...m.dbs.keys()].map((name) => ({ name, sizeOnDisk: 0, empty: false })), totalSize: 0 };
  },

  drop(m, db, cmd) {
    const nIndexesWas = (m.collection(db, cmd.drop)?.indexes.length ?? 0) + 1;
    m.dbs.get(db)?.delete(cmd.drop); // a missing collection is no error since MongoDB 7.0
    return { ns: `${db}.${cmd.drop}`, nIndexesWas };
  },

  dropDatabase(m, db) {
    m.dbs.delete(db);
    return { dropped: db };
  },
};

/** Runs write statements in order (stopping at the first error when `ordered`); n is the sum of counts. */
function writeEach(cmd: Document, statements: Document[], write: (statement: Document, index: number) => number): Document {
  let n = 0;
  const writeErrors: Document[] = [];
  for (const [index, statement] of statements.entries()) {
    try {
      n += write(statement, index);
    } catch (error) {
      const { code = 2, message } = error as CommandError;
      writeErrors.push({ index, code, errmsg: message, ...(code === 11000 ? { keyPattern: { _id: 1 } } : {}) });
      if (cmd.ordered !== false) break;
    }
  }
  return { n, ...(writeErrors.length ? { writeErrors } : {}) };
}

// ---- semantics, by mingo

interface Select {
  sort?: Document;
  skip?: number;
  limit?: number;
  projection?: Document;
  collation?: Document;
}

function select(coll: Collection, filter: Document, o: Select): Document[] {
  let cursor = new Query(filter, queryOptions(o.collation)).find([...coll.docs.values()], o.projection ?? {});
  if (o.sort && Object.keys(o.sort).length) cursor = cursor.sort(o.sort);
  if (o.skip) cursor = cursor.skip(o.skip);
  if (o.limit) cursor = cursor.limit(o.limit);
  return cursor.all() as Document[];
}

function queryOptions(collation: Document | undefined): Document {
  return collation ? { collation } : {};
}

function project(doc: Document | undefined, fields: Document | undefined): Document | null {
  if (!doc) return null;
  return fields && Object.keys(fields).length ? (new Query({}).find([doc], fields).all()[0] as Document) : doc;
}

/** The new version of a document: operators (with $setOnInsert on insert), a pipeline, or a replacement. */
function applyUpdate(doc: Document, u: Document | Document[], arrayFilters: Document[] | undefined, inserting: boolean): Document {
  let next: Document;
  if (Array.isArray(u)) {
    next = new Aggregator(u).run([copy(doc)])[0] as Document;
  } else if (isOperators(u)) {
    const { $setOnInsert, ...operators } = u;
    const paths = Object.values(operators).flatMap((fields) => Object.keys(fields ?? {}));
    if (!inserting && paths.some((path) => path === '_id' || path.startsWith('_id.'))) throw immutableId();
    next = copy(doc);
    if (Object.keys(operators).length) applyOperators(next, operators, arrayFilters);
    if (inserting && $setOnInsert) applyOperators(next, { $set: $setOnInsert });
  } else {
    next = { _id: doc._id, ...u };
  }
  if (doc._id !== undefined && keyOf(next._id) !== keyOf(doc._id)) throw immutableId();
  return next;
}

function immutableId(): CommandError {
  return new CommandError(66, 'ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
}

/** What an upsert inserts from its query: the top-level equalities (`{a: 1}`, `{a: {$eq: 1}}`, inside $and). */
function seedFrom(q: Document): Document {
  const seed: Document = {};
  const set = (path: string, value: unknown) => (path.includes('.') ? applyOperators(seed, { $set: { [path]: value } }) : (seed[path] = value));
  for (const [key, value] of Object.entries(q)) {
    if (key === '$and') for (const part of value) for (const [k, v] of Object.entries(seedFrom(part))) set(k, v);
    else if (key.startsWith('$')) continue;
    else if (!isOperators(value)) set(key, value);
    else if ('$eq' in value) set(key, value.$eq);
  }
  return seed;
}

function isOperators(value: unknown): boolean {
  const plain = value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
  return plain && Object.keys(value)[0]?.startsWith('$') === true;
}

/** The identity of an _id value: equal BSON values give equal keys. */
function keyOf(id: unknown): string {
  return EJSON.stringify({ id }, { relaxed: true });
}

function copy(doc: Document): Document {
  return BSON.deserialize(BSON.serialize(doc));
}

function sameDocument(a: Document, b: Document | undefined): boolean {
  return b !== undefined && Buffer.compare(BSON.serialize(a), BSON.serialize(b)) === 0;
}
