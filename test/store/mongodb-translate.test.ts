// The MongoDB translation: its shapes, and that no client input becomes an operator or a field path.

import t, { type Test } from 'tap';
import { SvcError } from '../../src/errors.ts';
import { createMember, listMembers, toQuery } from '../../src/handler/members.ts';
import { CONDITIONS_BY_TYPE, parseQuery } from '../../src/model/query.ts';
import type { Filter, Model, Value } from '../../src/model/types.ts';
import { validateCreate } from '../../src/model/validate.ts';
import { fieldKey, replacement, toDocument } from '../../src/store/mongodb/documents.ts';
import { escapeRegex, MATCH_NOTHING, translateFilters, translateOrder, translateQuery, type MongoFilter } from '../../src/store/mongodb/translate.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { indexDef, makeModel } from '../fixtures/models.ts';
import { compoundIndexes } from '../../src/store/mongodb/mongodb-store.ts';
import { filter, order, query } from './conformance.ts';

const MODEL = makeModel('notes', { name: 'string', body: 'text', n: 'integer', f: 'float', ok: 'boolean', d: 'date', at: 'date-time', _id: 'string' });

/** Operators the translator may write; anything else with a `$` is a defect. */
const QUERY_OPERATORS = new Set(['$and', '$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$regex', '$options', '$expr']);
const EXPRESSION_OPERATORS = new Set(['$eq', '$cond', '$type', '$substrCP', '$literal']);
/** Operators whose operand is a value from the query: it must be a literal (or a list of literals for `$in`). */
const VALUE_OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in']);
/** A pattern that matches its text literally: letters, digits, other ASCII escaped by a backslash (NUL as `\x00`), non-ASCII characters; anchors only. */
const LITERAL_PATTERN = /^\^?(?:[A-Za-z0-9]|\\x00|\\[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]|[^\x00-\x7f])*(?:\(\?!\[\\s\\S\]\))?$/u;

const isLiteral = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * Fails unless every key of `filter` is an operator the translator writes or a document key of
 * `model`, every operand that comes from the query is a literal, every regex is literal text and
 * every field path inside `$expr` names a field of the model.
 */
function assertServerShaped(t: Test, model: Model, filter: unknown, what: string): void {
  const keys = new Set([...model.fields.keys()].map((f) => fieldKey(model, f)));
  const problems: string[] = [];
  const queryLevel = (node: unknown, at: string): void => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return void problems.push(`${at}: not a query document`);
    for (const [k, v] of Object.entries(node)) {
      if (k === '$and') {
        if (!Array.isArray(v)) problems.push(`${at}.$and: not a list`);
        else v.forEach((c, i) => queryLevel(c, `${at}.$and[${i}]`));
      } else if (k === '$expr') expression(v, `${at}.$expr`);
      else if (k.startsWith('$')) problems.push(`${at}: operator ${k} at the top of a query`);
      else if (!keys.has(k)) problems.push(`${at}: key ${JSON.stringify(k)} is not a field of the model`);
      else fieldLevel(v, `${at}.${k}`);
    }
  };
  const fieldLevel = (node: unknown, at: string): void => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return void problems.push(`${at}: not an operator document`);
    for (const [op, v] of Object.entries(node)) {
      if (!QUERY_OPERATORS.has(op) || op === '$and' || op === '$expr') problems.push(`${at}: operator ${op}`);
      else if (op === '$in' ? !Array.isArray(v) || !v.every(isLiteral) : VALUE_OPERATORS.has(op) && !isLiteral(v)) problems.push(`${at}.${op}: operand is not a literal`);
      else if (op === '$regex' && (typeof v !== 'string' || !LITERAL_PATTERN.test(v))) problems.push(`${at}.$regex: ${JSON.stringify(v)} is not literal text`);
      else if (op === '$options' && v !== 'i') problems.push(`${at}.$options: ${JSON.stringify(v)}`);
    }
  };
  const expression = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((e, i) => expression(e, `${at}[${i}]`));
    if (typeof node === 'string') {
      // In an expression a string that starts with `$` is a field path.
      if (node.startsWith('$') && !keys.has(node.slice(1))) problems.push(`${at}: field path ${JSON.stringify(node)}`);
      if (!node.startsWith('$') && node !== '' && node !== 'string') problems.push(`${at}: a bare string ${JSON.stringify(node)} (values go in $literal)`);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [op, v] of Object.entries(node)) {
      if (!EXPRESSION_OPERATORS.has(op)) problems.push(`${at}: expression operator ${op}`);
      else if (op === '$literal' && !isLiteral(v)) problems.push(`${at}.$literal: not a literal`);
      else if (op !== '$literal') expression(v, `${at}.${op}`);
    }
  };
  queryLevel(filter, 'filter');
  t.same(problems, [], what);
}

/** Values a client might send hoping one becomes an operator, a path or a pattern. */
const HOSTILE: readonly string[] = [
  '$where',
  '$ne',
  '{"$gt":""}',
  '{"$where":"sleep(1000)"}',
  'a.b',
  '$a.b',
  '__proto__',
  '.*',
  '^',
  '$',
  'a|b',
  '(?i)a',
  '\\',
  '\\E.*\\Q',
  '[^]',
  '\0',
  'x\ny',
  '(*UTF)x',
  'this.name == "x"',
  'function() { return true; }',
];

t.test('shapes', async (t) => {
  t.same(translateFilters(MODEL, []), {}, 'no filters: every member');
  t.same(translateFilters(MODEL, [filter('name', 'exact', 'x')]), { name: { $eq: 'x' } }, 'values are $eq operands, never bare');
  t.same(translateFilters(MODEL, [filter('n', 'gt', 1), filter('n', 'lt', 5)]), { $and: [{ n: { $gt: 1 } }, { n: { $lt: 5 } }] }, 'two filters on one field both apply');
  t.same(translateFilters(MODEL, [filter('id', 'in', [1, 2])]), { _id: { $in: [1, 2] } }, 'id is _id');
  t.same(translateFilters(MODEL, [filter('_id', 'exact', 'x')]), { __id: { $eq: 'x' } }, 'a declared _id field is __id');
  t.same(translateFilters(MODEL, [filter('name', 'isnull', true)]), { name: { $eq: null } });
  t.same(translateFilters(MODEL, [filter('name', 'ne', 'x')]), { name: { $ne: 'x' } }, '$ne: absent values are not equal');
  t.same(translateFilters(MODEL, [filter('name', 'startswith', 'a.b')]), { name: { $regex: '^a\\.b' } }, 'an anchored, case-sensitive prefix (an index serves it)');
  t.same(translateFilters(MODEL, [filter('name', 'iexact', 'É')]), { name: { $regex: '^É(?![\\s\\S])', $options: 'i' } });
  t.same(translateFilters(MODEL, [filter('d', 'year', 2024)]), { d: { $gte: '2024-', $lt: '2024.' } }, 'a year is a range (an index serves it)');
  t.same(translateFilters(MODEL, [filter('d', 'month', 3)]), {
    $expr: { $eq: [{ $substrCP: [{ $cond: [{ $eq: [{ $type: '$d' }, 'string'] }, '$d', ''] }, 5, 2] }, { $literal: '03' }] },
  });
  t.same(translateFilters(MODEL, [filter('d', 'month', 100)]), MATCH_NOTHING, 'a month no date has');
  t.same(translateFilters(MODEL, [filter('n', 'gt', null)]), MATCH_NOTHING, 'a comparison with null matches nothing (as in SQL)');
  t.same(translateFilters(MODEL, [filter('n', 'range', [1, null])]), MATCH_NOTHING);

  t.same(translateOrder(MODEL, []), { _id: 1 });
  t.same(Object.entries(translateOrder(MODEL, order('-n', 'name'))), [['n', -1], ['name', 1], ['_id', 1]], 'ties broken by _id ascending, in priority order');
  t.same(translateOrder(MODEL, order('-id', 'n')), { _id: -1 }, 'nothing after id');
  t.same(Object.entries(translateOrder(MODEL, order('n', '-n', 'updated'))), [['n', 1], ['updated', 1], ['_id', 1]], 'a field ordered by again orders nothing');

  t.same(translateQuery(MODEL, query({ start: 5, count: 10 })), { filter: {}, sort: { _id: 1 }, skip: 5, limit: 10 });
  t.same(translateQuery(MODEL, query({ start: 5 })).limit, undefined, 'no count: no limit');
  const none = translateQuery(MODEL, query({ filters: [filter('n', 'exact', 1)], count: 0 }));
  t.same(none.filter, MATCH_NOTHING, 'count 0 is a filter that matches nothing');
  t.equal(none.limit, undefined, '(never limit 0, which MongoDB reads as "no limit")');
});

t.test('regexes match their text literally, in JavaScript as in PCRE', async (t) => {
  for (const text of [...HOSTILE, 'abc', 'é😀', '']) {
    const source = escapeRegex(text);
    t.match(source, LITERAL_PATTERN, `${JSON.stringify(text)} → ${source}`);
    t.ok(new RegExp(`^${source}$`).test(text), `matches ${JSON.stringify(text)}`);
  }
  t.notOk(new RegExp(escapeRegex('.')).test('x'), '. is not a wildcard');
  // PCRE's `$` also matches before a final newline: the end is a lookahead that both read alike.
  const [whole] = Object.values(translateFilters(MODEL, [filter('name', 'iexact', 'abc')])) as { $regex: string }[];
  t.notMatch(whole!.$regex, /\$/, 'no $ anchor');
  t.notOk(new RegExp(whole!.$regex, 'i').test('abc\n'), 'abc does not match "abc\\n"');
  t.notMatch(escapeRegex('a\0b'), /\0/, 'no raw NUL (MongoDB refuses one in a pattern)');
});

t.test('translator: hostile values stay literal values, in every condition of every type', async (t) => {
  const values: Record<string, Value[]> = {
    string: [...HOSTILE],
    text: [...HOSTILE],
    integer: [0, -1, Number.MAX_SAFE_INTEGER],
    float: [0.5, -1e300],
    boolean: [true, false],
    date: ['2024-02-29'],
    'date-time': ['2024-02-29T23:59:59.999Z'],
    auto: [1],
  };
  let n = 0;
  for (const [field, def] of MODEL.fields) {
    for (const condition of CONDITIONS_BY_TYPE[def.type]) {
      for (const v of values[def.type]!) {
        const value: Value | Value[] =
          condition === 'in' ? [v, v] : condition === 'range' ? [v, v] : condition === 'isnull' ? true : ['year', 'month', 'day'].includes(condition) ? 2 : v;
        const f: Filter = { field, condition, value };
        const translated = translateFilters(MODEL, [f]);
        assertServerShaped(t, MODEL, translated, `${field}__${condition}=${JSON.stringify(value)}`);
        if (['exact', 'ne', 'gt', 'gte', 'lt', 'lte'].includes(condition)) {
          const operand = Object.values((translated as Record<string, MongoFilter>)[fieldKey(MODEL, field)]!)[0];
          t.equal(operand, v, `${field}__${condition}: the value is the operand, unchanged`);
        }
        n++;
      }
    }
  }
  t.ok(n > 300, `${n} filters`);
});

t.test('translator: a value that is not a literal, or a field the model lacks, is refused', async (t) => {
  const bad = (f: unknown) => () => translateFilters(MODEL, [f as Filter]);
  t.throws(bad({ field: 'name', condition: 'exact', value: { $gt: '' } }), /not a literal/);
  t.throws(bad({ field: 'name', condition: 'in', value: [{ $where: '1' }] }), /not a literal/);
  t.throws(bad({ field: 'n', condition: 'gt', value: Number.NaN }), /not a literal/);
  for (const field of ['$where', 'a.b', 'name.$ne', '__proto__', 'constructor', '']) {
    t.throws(bad({ field, condition: 'exact', value: 1 }), /has no field/, `field ${JSON.stringify(field)}`);
    t.throws(() => translateOrder(MODEL, [{ field, desc: false }]), /has no field/, `order by ${JSON.stringify(field)}`);
  }
  t.throws(bad({ field: 'name', condition: '$where', value: 1 }), /does not apply/, 'an unknown condition');
  t.throws(bad({ field: 'n', condition: 'contains', value: 1 }), /does not apply/, 'a condition that does not fit the type');
});

/** Query strings as a client sends them: each is a 400 naming the parameter, or a query of literal values. */
const QUERY_STRINGS: readonly [string, 'rejected' | 'literal'][] = [
  ['name[$ne]=x', 'rejected'],
  ['name__gt[$gt]=', 'rejected'],
  ['name__$ne=x', 'rejected'],
  ['$where=sleep(1000)', 'rejected'],
  ['a.b=1', 'rejected'],
  ['name.$ne=x', 'rejected'],
  ['__proto__=x', 'rejected'],
  ['constructor=x', 'rejected'],
  ['_id=1', 'literal'],
  ['name__regex=.*', 'rejected'],
  ['name__where=1', 'rejected'],
  ['order_by=$natural', 'rejected'],
  ['order_by=-a.b', 'rejected'],
  ['order_by=name,$where', 'rejected'],
  ['n={"$gt":0}', 'rejected'],
  ['n__in=1,{"$gt":0}', 'rejected'],
  ['name=%24ne', 'literal'],
  ['name={"$ne":null}', 'literal'],
  ['name__in=$gt,$where', 'literal'],
  ['name__contains=.*', 'literal'],
  ['name__icontains=%5E.*%24', 'literal'],
  ['name__startswith=(?i)', 'literal'],
  ['name__range=$a,$z', 'literal'],
  ['body__endswith=%00', 'literal'],
  ['d__month=3', 'literal'],
  ['d__month=$d', 'rejected'],
  ['d__year={"$gt":0}', 'rejected'],
];

t.test('query strings: a 400, or literal values', async (t) => {
  for (const [qs, expected] of QUERY_STRINGS) {
    let parsed;
    try {
      parsed = parseQuery(MODEL, new URLSearchParams(qs));
    } catch (e) {
      t.ok(e instanceof SvcError && e.status === 400 && e.code === 'invalid-query', `${qs}: 400 invalid-query`);
      t.equal(expected, 'rejected', `${qs} is rejected`);
      continue;
    }
    t.equal(expected, 'literal', `${qs} is accepted`);
    const find = translateQuery(MODEL, parsed);
    assertServerShaped(t, MODEL, find.filter, qs);
    t.ok(Object.keys(find.sort).every((k) => k === '_id' || MODEL.fields.has(k)), `${qs}: sort keys from the model`);
  }
});

/** JSON bodies as a client sends them: each is a 400 naming the field, or a member of literal values. */
const BODIES: readonly [string, 'rejected' | 'literal'][] = [
  ['{"$where": "sleep(1000)"}', 'rejected'],
  ['{"a.b": 1}', 'rejected'],
  ['{"name.$ne": 1}', 'rejected'],
  ['{"$set": {"n": 1}}', 'rejected'],
  ['{"name": {"$ne": null}}', 'rejected'],
  ['{"name": {"$gt": ""}}', 'rejected'],
  ['{"name": ["$gt"]}', 'rejected'],
  ['{"n": {"$inc": 1}}', 'rejected'],
  ['{"__proto__": {"name": "x"}}', 'rejected'],
  ['{"constructor": {"prototype": {}}}', 'rejected'],
  ['{"_id": "$where"}', 'literal'],
  ['{"name": "$where", "body": "{\\"$gt\\": \\"\\"}"}', 'literal'],
  ['{"name": "a.b", "body": "$set"}', 'literal'],
];

t.test('JSON bodies: a 400, or a document of literal values under model keys', async (t) => {
  const keys = new Set([...MODEL.fields.keys()].map((f) => fieldKey(MODEL, f)));
  for (const [body, expected] of BODIES) {
    let data;
    try {
      data = validateCreate(MODEL, JSON.parse(body), false);
    } catch (e) {
      t.ok(e instanceof SvcError && e.status === 400, `${body}: 400`);
      t.equal(expected, 'rejected', `${body} is rejected`);
      continue;
    }
    t.equal(expected, 'literal', `${body} is accepted`);
    for (const doc of [toDocument(MODEL, 1, '2025-01-01T00:00:00.000Z', data), replacement(MODEL, '2025-01-01T00:00:00.000Z', data).$set]) {
      t.ok(Object.keys(doc).every((k) => keys.has(k)), `${body}: keys from the model (${Object.keys(doc)})`);
      t.ok(Object.values(doc).every(isLiteral), `${body}: literal values`);
    }
  }
});

t.test('the model API (svc.collection().list/create): a 400, or literal values', async (t) => {
  const store = await openSqliteStore('sqlite::memory:', '');
  t.teardown(() => store.close());
  await createMember(store, MODEL, { name: '$ne', n: 1 });
  await createMember(store, MODEL, { name: 'x', n: 2 });
  for (const params of [{ 'name[$ne]': 'x' }, { $where: '1' }, { 'a.b': 1 }, { name__gt: 'a', 'n__gt[$gt]': 0 }, { order_by: '$natural' }]) {
    await t.rejects(listMembers(store, MODEL, params), { status: 400, code: 'invalid-query' }, JSON.stringify(params));
  }
  t.same((await listMembers(store, MODEL, { name: '$ne' })).map((m) => m.id), [1], '"$ne" is a name');
  t.same((await listMembers(store, MODEL, { name: { $ne: 'x' } })).map((m) => m.id), [], 'an object is its text, "[object Object]"');
  assertServerShaped(t, MODEL, translateQuery(MODEL, toQuery(MODEL, { name: { $ne: 'x' }, n__in: [1, 2] })).filter, 'objects and lists from a handler');
  await t.rejects(createMember(store, MODEL, { $where: '1' }), { status: 400, code: 'invalid-member' });
  await t.rejects(createMember(store, MODEL, { name: { $gt: '' } }), { status: 400, code: 'invalid-member' });
});

t.test("MongoDB's MaxTimeMSExpired of a read is its store-time limit, other server errors keep their meaning", async (t) => {
  const { MongoServerError } = await import('mongodb');
  const { readError } = await import('../../src/store/mongodb/errors.ts');
  const expired = readError(new MongoServerError({ code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' }), 250);
  t.match(expired, { code: 'store-time-limit', status: 503 });
  t.match((expired as SvcError).message, /250 ms of store time/);
  t.match(readError(new MongoServerError({ code: 91, errmsg: 'shutting down' }), 250), { code: 'store-unavailable' });
});

t.test('declared compound indexes as MongoDB indexes: document keys in order (a part as stored), then _id', async (t) => {
  const fields = { name: 'string', born: 'date', _id: 'string', level: { type: 'integer', index: false } } as const;
  const model = makeModel('people', fields, {
    indexes: [indexDef('born', 'born__day', 'name'), indexDef('_id', 'born__month', 'level'), indexDef('born__day'), indexDef('level'), indexDef('name')],
  });
  t.same(compoundIndexes(model), [
    { name: 'svc+born,born__day,name', key: { born: 1, born__day: 1, name: 1, _id: 1 } },
    { name: 'svc+_id,born__month,level', key: { __id: 1, born__month: 1, level: 1, _id: 1 } },
    { name: 'svc+born__day', key: { born__day: 1, _id: 1 } },
    { name: 'svc+level', key: { level: 1, _id: 1 } },
    // name alone is name's own index (a model file cannot declare it).
  ]);
  t.same(Object.keys(compoundIndexes(model)[0]!.key), ['born', 'born__day', 'name', '_id'], 'keys in declared order');
  t.same(compoundIndexes(makeModel('people', fields)), [], 'none declared');
});

t.test('a part an index names is stored with the member and compared as stored', async (t) => {
  const fields = { born: 'date', seen: 'date-time', _at: 'date', note: 'string' } as const;
  const model = makeModel('people', fields, { indexes: [indexDef('born__day', 'seen__month'), indexDef('_at__day')] });
  const member = { born: '1990-01-05', seen: '2024-07-04T08:00:00.000Z', _at: '2000-02-29', note: 'x' };
  t.same(toDocument(model, 1, 'u', member), {
    _id: 1, updated: 'u', born: '1990-01-05', seen: '2024-07-04T08:00:00.000Z', __at: '2000-02-29', note: 'x', born__day: '05', seen__month: '07', __at__day: '29',
  });
  t.same(translateFilters(model, [filter('born', 'day', 5)]), { born__day: { $eq: '05' } }, 'an equality on the stored part');
  t.same(translateFilters(model, [filter('seen', 'month', 7)]), { seen__month: { $eq: '07' } });
  t.same(translateFilters(model, [filter('born', 'month', 1)]).$expr !== undefined, true, 'a part no index names: the expression');
  const { $set, $unset } = replacement(model, 'v', { born: '1990-01-06' });
  t.same({ born__day: $set.born__day, seen__month: $unset?.seen__month, note__day: $unset?.note__day, born__month: $unset?.born__month }, { born__day: '06', seen__month: '', note__day: '', born__month: '' }, 'a write sets its parts and removes those no index names');
});
