// The in-isolate half of the handler runtime API (README "Handlers"); src/sandbox/bridge.ts is the host half.
//
// Evaluated once per isolate as the body of a function (isolated-vm's `context.evalClosure`):
//   $0  a Reference to the host call `(op, payload, text, token) => reply`, used through
//       `applySyncPromise`, so that every runtime call is synchronous for the handler even when
//       the host does asynchronous I/O behind it (and `applyIgnored` for one-way calls). `token`
//       names the request: several may wait in one isolate, and run one after the other;
//   $1  JSON configuration from the host ({ events, handlerNames, …: CONFIG in src/sandbox/bridge.ts }).
// It defines the handler globals (svc, zget, zput, zcontains, zdelete, echo, render,
// svc_delegate, console), removes what could carry state from one request to the next, tames and
// freezes every intrinsic, freezes globalThis, and returns { install, uninstall, run } for the host
// (and its JSON reader, `json`, for a test).
//
// Nothing handler code can reach holds the Reference: it lives in this closure only, and every
// object handler code could use to intercept a call into it (prototypes, globals) is frozen before
// any handler code runs. Values leave this isolate only as JSON text and are validated again by
// the host.
'use strict';

const hostRef = $0;
const CONFIG = JSON.parse($1);

// ---------------------------------------------------------------------------------------------
// Intrinsics, captured before anything else runs.

const {
  freeze, defineProperty, getOwnPropertyDescriptor, getOwnPropertyNames, getOwnPropertySymbols,
  getPrototypeOf, keys: objectKeys, hasOwn, isFrozen,
} = Object;
const { apply } = Reflect;
const { isArray } = Array;
const jsonParse = JSON.parse;
const jsonStringify = JSON.stringify;
const ObjectProto = Object.prototype;
const DateProto = Date.prototype;
const dateToISOString = Date.prototype.toISOString;
const functionToString = Function.prototype.toString;
const promiseResolve = Promise.resolve.bind(Promise);
const promiseThen = Promise.prototype.then;
const promiseReject = Promise.reject.bind(Promise);
const isInteger = Number.isInteger;
const StringCtor = String;
const NumberCtor = Number;
// String methods as functions of the string (`stringCharCodeAt(text, i)`), for the JSON reader's
// loops below: as fast as a method call, where `apply` took a third of the reader's time.
const stringIndexOf = Function.prototype.call.bind(String.prototype.indexOf);
const stringCharCodeAt = Function.prototype.call.bind(String.prototype.charCodeAt);
const stringSlice = Function.prototype.call.bind(String.prototype.slice);
const ErrorCtor = Error;
const TypeErrorCtor = TypeError;

const MAX_DEPTH = 100; // levels of nesting a stored value may have
const MAX_KEY_LENGTH = 1024; // characters of a context key
const MAX_LOG_LINE_CHARS = CONFIG.maxLogLineChars; // characters of one console line, '…' included
// Console output of one request (the host's numbers, src/sandbox/guest.ts: it logs one line when a
// request passes them): without a cap, one request could write ~100 MB of log in its CPU budget.
// Past the cap the prelude stops calling the host, so dropped lines cost no round trips either.
const MAX_LOG_LINES = CONFIG.maxLogLines; // lines per request
const MAX_LOG_CHARS = CONFIG.maxLogChars; // characters per request
const MAX_MESSAGE_LENGTH = 2000; // characters of an error message sent to the host
const MAX_STACK_LENGTH = 8000; // characters of an error stack sent to the host

const EVENTS = CONFIG.events; // ['list', 'putCollection', ...]
const HANDLER_NAMES = CONFIG.handlerNames; // { list: 'onList', ... }

// ---------------------------------------------------------------------------------------------
// JSON from outside the isolate (the request, the host's replies, a fetch response's json()), read
// around V8's misreading of escaped names: the same reader as hasEscapedName and readValid of
// src/model/json-text.ts, which say why (nodejs/node#63785). An isolate has one parser cache for
// every request it serves: once a client's body `{"text":"a","\\":1}` was parsed here, the next
// client's `{"text":"b","\"":1}` reached the handler as `{text, "\\"}`. A handler's own JSON.parse
// is V8's. test/sandbox/prelude-json-reader.test.ts checks that the two readers agree.

/**
 * The value of JSON `text`: JSON.parse's, unless an object name holds an escape. Text without one
 * costs JSON.parse and a native search for a backslash. Throws JSON.parse's SyntaxError.
 */
function parseJson(text) {
  const value = jsonParse(text);
  return hasEscapedName(text) ? readValid(text) : value;
}

/** True when an object name in `text`, which JSON.parse accepted, holds an escape. */
function hasEscapedName(text) {
  for (let i = stringIndexOf(text, '\\'); i !== -1; i = stringIndexOf(text, '\\', i)) {
    // The string that holds this backslash ends at the next quote after an even run of backslashes.
    let end = stringIndexOf(text, '"', i);
    while (end !== -1 && backslashesBefore(text, end) % 2 === 1) end = stringIndexOf(text, '"', end + 1);
    if (end === -1) return false;
    i = end + 1;
    let c = stringCharCodeAt(text, i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = stringCharCodeAt(text, ++i);
    // A string followed by a colon is a name.
    if (c === 0x3a) return true;
  }
  return false;
}

/** How many backslashes stand right before `at`. */
function backslashesBefore(text, at) {
  let n = 0;
  while (stringCharCodeAt(text, at - n - 1) === 0x5c) n++;
  return n;
}

/** The index of the quote that closes the string opened at `open`, escapes skipped. */
function stringEnd(text, open) {
  let i = open + 1;
  while (i < text.length) {
    const d = stringCharCodeAt(text, i);
    if (d === 0x22) break;
    i += d === 0x5c ? 2 : 1;
  }
  return i;
}

/** The value of the string literal at text[open..end] (quotes included): a lone string is no object, JSON.parse reads it right. */
function stringAt(text, open, end) {
  const literal = stringSlice(text, open, end + 1);
  return stringIndexOf(literal, '\\') === -1 ? stringSlice(literal, 1, -1) : jsonParse(literal);
}

/**
 * Reads `text`, which JSON.parse accepted, building the objects itself, in about four times
 * JSON.parse's time (a 7 KB text: 125 µs after JSON.parse's 34 µs). Recursive: text nested deeper than the isolate's stack allows (thousands of
 * levels; request bodies are bounded at 100) throws a RangeError, which json() rejects with.
 */
function readValid(text) {
  let i = 0;
  const at = () => stringCharCodeAt(text, i);
  const skipSpace = () => {
    for (let c = at(); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = stringCharCodeAt(text, ++i));
  };
  const string = () => {
    const end = stringEnd(text, i);
    const s = stringAt(text, i, end);
    i = end + 1;
    return s;
  };
  const value = () => {
    skipSpace();
    const c = at();
    if (c === 0x22) return string();
    if (c === 0x7b) {
      const object = {};
      for (i++, skipSpace(); at() !== 0x7d; skipSpace()) {
        if (at() === 0x2c) {
          i++;
          skipSpace();
        }
        const name = string();
        skipSpace();
        i++; // the colon
        // As JSON.parse: `__proto__` is a plain own key, never the prototype; a repeated name
        // keeps its first place and takes the last value. A name of Object.prototype's (toString)
        // becomes an own data property too, by the setter the lockdown below gives it (tame).
        if (name === '__proto__') defineProperty(object, name, { value: value(), writable: true, enumerable: true, configurable: true });
        else object[name] = value();
      }
      i++;
      return object;
    }
    if (c === 0x5b) {
      const items = [];
      for (i++, skipSpace(); at() !== 0x5d; skipSpace()) {
        if (at() === 0x2c) i++;
        items[items.length] = value();
      }
      i++;
      return items;
    }
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      // true, false or null: JSON.parse has checked the spelling.
      i += c === 0x66 ? 5 : 4;
      return c === 0x74 ? true : c === 0x66 ? false : null;
    }
    // A number, up to the next delimiter: Number() reads JSON's number syntax to the same double.
    const start = i;
    for (let d = c; i < text.length && d !== 0x2c && d !== 0x5d && d !== 0x7d && d !== 0x20 && d !== 0x0a && d !== 0x0d && d !== 0x09; d = stringCharCodeAt(text, ++i));
    return NumberCtor(stringSlice(text, start, i));
  };
  return value();
}

// ---------------------------------------------------------------------------------------------
// The host call.

const UNFETCHED = freeze({});

function host(op, payload, text) {
  if (current !== null && current.answered) throw new ErrorCtor('svc: this request was already answered (the server cut it short)');
  let raw;
  try {
    raw = hostRef.applySyncPromise(undefined, [op, payload === undefined ? '' : jsonStringify(payload), text === undefined ? '' : text, current === null ? 0 : current.token]);
  } catch {
    // Never hand a host error (its stack names host files) to handler code.
    throw new ErrorCtor('svc: the server could not complete this call');
  }
  const reply = parseJson(raw);
  // The host answered this request itself (e.g. its output passed the cap): every later call fails
  // here, without another trip to the host.
  if (reply.closed === true && current !== null) current.answered = true;
  if (reply.error !== undefined) {
    const E = reply.error.type === 'TypeError' ? TypeErrorCtor : ErrorCtor;
    throw new E(reply.error.message);
  }
  return reply.value;
}

// ---------------------------------------------------------------------------------------------
// Copies: what a handler stores or sends is copied as JSON-like data, so that nothing it keeps a
// reference to can change the request behind its back, and nothing but data reaches the host.

// What a value that cannot be used is called in a TypeError, by the prototypes of the intrinsics,
// captured here while they are pristine. Nothing is read from the intrinsics later: the lockdown
// below makes their `constructor` an accessor (tame), so the value's own chain cannot name them.
const TYPE_NAMES = new Map();
{
  const named = [
    [Object, 'an object'], [Array, 'an array'], [Function, 'a function'], [Date, 'a Date'], [RegExp, 'a RegExp'],
    [Map, 'a Map'], [Set, 'a Set'], [WeakMap, 'a WeakMap'], [WeakSet, 'a WeakSet'], [Promise, 'a Promise'],
    [ArrayBuffer, 'an ArrayBuffer'], [DataView, 'a DataView'], [getPrototypeOf(Int8Array), 'a typed array'],
    [Number, 'a Number object'], [String, 'a String object'], [Boolean, 'a Boolean object'],
    [Symbol, 'a Symbol object'], [BigInt, 'a BigInt object'], [Error, 'an Error'], [EvalError, 'an EvalError'],
    [RangeError, 'a RangeError'], [ReferenceError, 'a ReferenceError'], [SyntaxError, 'a SyntaxError'],
    [TypeError, 'a TypeError'], [URIError, 'a URIError'], [AggregateError, 'an AggregateError'],
  ];
  for (const T of [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array]) {
    named.push([T, `${T.name.startsWith('I') ? 'an' : 'a'} ${T.name}`]);
  }
  if (typeof Iterator === 'function') named.push([Iterator, 'an iterator']);
  for (const [C, name] of named) TYPE_NAMES.set(C.prototype, name);
}

/**
 * The name of the class whose prototype `proto` is (a handler's class: `a Foo`), read from own data
 * properties only, so that no getter of the handler's runs inside the runtime; else undefined.
 */
function className(proto) {
  const c = getOwnPropertyDescriptor(proto, 'constructor');
  if (c === undefined || !hasOwn(c, 'value') || typeof c.value !== 'function') return undefined;
  const p = getOwnPropertyDescriptor(c.value, 'prototype');
  if (p === undefined || !hasOwn(p, 'value') || p.value !== proto) return undefined;
  const n = getOwnPropertyDescriptor(c.value, 'name');
  if (n === undefined || !hasOwn(n, 'value') || typeof n.value !== 'string' || n.value === '') return undefined;
  const name = n.value.slice(0, 100);
  return `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}`;
}

/** What `value` is, for a TypeError: `a string`, `an array`, `an Error`, `a Map`, `a Foo`, … */
function describeType(value) {
  if (value === undefined || value === null) return StringCtor(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value !== 'object') return `a ${typeof value}`;
  try {
    let proto = getPrototypeOf(value);
    if (proto === null) return 'an object';
    // The nearest prototype that names a type: an intrinsic's, or a class's (a Proxy's
    // getPrototypeOf trap could make the chain endless: it is followed so far only).
    for (let depth = 0; proto !== null && depth < MAX_DEPTH; depth++) {
      const known = TYPE_NAMES.get(proto);
      if (known !== undefined) return depth > 0 && proto === ObjectProto ? 'an object with a custom prototype' : known;
      const name = className(proto);
      if (name !== undefined) return name;
      proto = getPrototypeOf(proto);
    }
    return 'an object with a custom prototype';
  } catch {
    return 'an object that cannot be inspected';
  }
}

function notCopyable(what, path, kind) {
  return new TypeErrorCtor(
    `${what}: the value${path ? ` at ${path}` : ''} is not copyable (${kind}); only JSON data crosses: ` +
      'null, booleans, finite numbers, strings, arrays and plain objects (Dates become ISO strings)',
  );
}

function copyValue(value, what, path = '', depth = 0, seen = undefined) {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return value;
    case 'number':
      if (value !== value || value === Infinity || value === -Infinity) throw notCopyable(what, path, 'a non-finite number');
      return value;
    case 'object':
      break;
    default:
      throw notCopyable(what, path, describeType(value));
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH) throw new TypeErrorCtor(`${what}: the value is nested deeper than ${MAX_DEPTH} levels`);
  seen ??= [];
  for (let i = 0; i < seen.length; i++) if (seen[i] === value) throw notCopyable(what, path, 'a cycle');
  if (isArray(value)) {
    seen.push(value);
    const length = value.length;
    const out = [];
    for (let i = 0; i < length; i++) {
      const v = copyValue(value[i], what, `${path}[${i}]`, depth + 1, seen);
      out.push(v === undefined ? null : v);
    }
    seen.pop();
    return out;
  }
  const proto = getPrototypeOf(value);
  if (proto === DateProto) {
    try {
      return apply(dateToISOString, value, []);
    } catch {
      return null; // an invalid Date, as JSON.stringify has it
    }
  }
  if (proto !== ObjectProto && proto !== null) throw notCopyable(what, path, describeType(value));
  seen.push(value);
  const out = {};
  const keys = objectKeys(value);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = copyValue(value[k], what, `${path}.${k}`, depth + 1, seen);
    if (v !== undefined) defineProperty(out, k, { value: v, writable: true, enumerable: true, configurable: true });
  }
  seen.pop();
  return out;
}

/** A fresh copy of data that copyValue produced (no checks needed). */
function clone(value) {
  if (value === null || typeof value !== 'object') return value;
  if (isArray(value)) {
    const out = [];
    for (let i = 0; i < value.length; i++) out.push(clone(value[i]));
    return out;
  }
  const out = {};
  const keys = objectKeys(value);
  for (let i = 0; i < keys.length; i++) {
    defineProperty(out, keys[i], { value: clone(value[keys[i]]), writable: true, enumerable: true, configurable: true });
  }
  return out;
}

function scalarText(value, what) {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && value === value && value !== Infinity && value !== -Infinity) || typeof value === 'boolean') {
    return StringCtor(value);
  }
  throw new TypeErrorCtor(`${what}: expected a string, not ${describeType(value)}`);
}

// ---------------------------------------------------------------------------------------------
// The request being served, and the context keys of README "Handlers".

let current = null;
// Called when a request begins and when it ends: drops what the runtime kept for that request
// alone (the Intl block below sets it).
let requestBoundary = () => {};

function req() {
  if (current === null) throw new ErrorCtor('svc: the runtime API is available only while a request is served');
  if (current.pendingDelegate) settleDelegate(current);
  return current;
}

function newRequest(data, token) {
  return {
    token,
    method: data.method,
    path: data.path,
    event: data.event,
    collection: data.collection,
    pathInfo: data.pathInfo,
    params: new Map(data.params),
    paramsDirty: false,
    headersIn: new Map(data.headers),
    body: data.body,
    bodyDirty: false,
    status: undefined,
    headersOut: new Map(data.headersOut),
    view: undefined,
    jsonOutput: undefined,
    errorMessage: undefined,
    custom: new Map(),
    env: new Map(),
    member: undefined,
    collectionResult: undefined,
    rawBody: UNFETCHED,
    delegated: false,
    pendingDelegate: false,
    committed: false,
    ended: false,
    unwaited: 0,
    oneWayCalls: 0,
    logLines: 0,
    logChars: 0,
    answered: false,
    notAllowed: undefined,
  };
}

// The host's header rules (src/sandbox/guest.ts), checked here too so that a handler's mistake throws where it is made.
const HEADER_NAME = new RegExp(CONFIG.headerName);
const HEADER_VALUE = new RegExp(CONFIG.headerValue);
const VIEWS = { json: 'JSON', error: 'error' };
// Framing and hop-by-hop headers belong to the server (RESPONSE_SERVER_HEADERS in src/sandbox/guest.ts:
// a handler's content-length would let its output smuggle a second response onto the
// connection), and so does X-Request-Id, the id the log and problems quote.
const SERVER_HEADERS = new Set(CONFIG.serverHeaders);
const MAX_HEADERS = CONFIG.maxHeaders; // response headers the host sends

/** Why `text` cannot be a header value: the first character HEADER_VALUE refuses, named. */
function headerValueFault(text) {
  for (let i = 0; i < text.length; i++) {
    const c = stringCharCodeAt(text, i);
    if (c === 0x09 || (c >= 0x20 && c <= 0x7e) || (c >= 0x80 && c <= 0xff)) continue;
    const code = `U+${StringCtor(c.toString(16)).toUpperCase().padStart(4, '0')}`;
    if (c > 0xff) return `a header value is Latin-1 text; ${code} at index ${i} is not (percent-encode or RFC 8187-encode other text)`;
    return `a header value cannot contain control characters such as CR or LF (${code} at index ${i})`;
  }
  return 'a header value cannot contain control characters such as CR or LF';
}

function checkKey(key, fn) {
  if (typeof key !== 'string') throw new TypeErrorCtor(`${fn}: the key must be a string, not ${describeType(key)}`);
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw new TypeErrorCtor(`${fn}: a key has 1 to ${MAX_KEY_LENGTH} characters`);
  return key;
}

function fetchResource(r, which) {
  const value = which === 'member' ? r.member : r.collectionResult;
  if (value !== UNFETCHED) return value;
  const fetched = host('resource', { which });
  if (which === 'member') r.member = fetched;
  else r.collectionResult = fetched;
  return fetched;
}

/** The body as sent, as text (undefined without one): asked of the host once, on first read. */
function rawBodyOf(r) {
  if (r.rawBody === UNFETCHED) {
    const text = host('rawBody');
    r.rawBody = typeof text === 'string' ? text : undefined;
  }
  return r.rawBody;
}

/** The stored value of a key, not copied. */
function peek(r, key) {
  switch (key) {
    case '/request/method': return r.method;
    case '/request/path': return r.path;
    case '/request/body': return r.body;
    case '/request/rawBody': return rawBodyOf(r);
    case '/request/status': return r.status;
    case '/request/view': return r.view;
    case '/request/json/output': return r.jsonOutput;
    case '/request/error/message': return r.errorMessage;
    case '/event/_name': return r.event;
    case '/event/pathInfo': return r.pathInfo;
    case '/event/resource/collection': return fetchResource(r, 'collection');
    case '/event/resource/member': return fetchResource(r, 'member');
  }
  if (key.startsWith('/request/params/')) return r.params.get(key.slice(16));
  if (key.startsWith('/request/headers/in/')) return r.headersIn.get(key.slice(20).toLowerCase());
  if (key.startsWith('/request/headers/out/')) return r.headersOut.get(key.slice(21).toLowerCase());
  if (key.startsWith('/app/env/')) return appEnv(r, key.slice(9));
  if (isReserved(key)) return undefined;
  return r.custom.get(key);
}

/** Keys the runtime owns: a handler's own keys start elsewhere. */
function isReserved(key) {
  return key.startsWith('/request/') || key.startsWith('/event/') || key.startsWith('/app/');
}

/** `/app/env/<NAME>` from the app's svc.json, asked of the host once per name and request. */
function appEnv(r, name) {
  if (r.env.has(name)) return r.env.get(name);
  const value = host('env', { name });
  r.env.set(name, value === null ? undefined : value);
  return r.env.get(name);
}

const READ_ONLY = new Set(['/request/method', '/request/path', '/request/rawBody', '/event/_name', '/event/pathInfo', '/event/resource/collection', '/event/resource/member']);

function isReadOnly(key) {
  return READ_ONLY.has(key) || key.startsWith('/request/headers/in/') || key.startsWith('/app/env/');
}

/** The TypeError for a key under /request/, /event/ or /app/ that the runtime does not have. */
function unknownKey(what, key) {
  return new TypeErrorCtor(`${what}: there is no context key ${key} (keys of your own must not start with /request/, /event/ or /app/)`);
}

function zget(key) {
  const r = req();
  return clone(peek(r, checkKey(key, 'zget')));
}

function zcontains(key) {
  const r = req();
  return peek(r, checkKey(key, 'zcontains')) !== undefined;
}

function zput(key, value) {
  const r = req();
  checkKey(key, 'zput');
  const what = `zput(${jsonStringify(key)})`;
  if (value === undefined) {
    unset(r, key, what);
    return;
  }
  if (isReadOnly(key)) throw new TypeErrorCtor(`${what}: ${key} is read-only`);
  switch (key) {
    case '/request/body': {
      const body = copyValue(value, what);
      if (body === null || typeof body !== 'object' || isArray(body)) throw new TypeErrorCtor(`${what}: the body must be an object of member fields`);
      r.body = body;
      r.bodyDirty = true;
      return;
    }
    case '/request/status':
      if (!isInteger(value) || value < 200 || value > 599) throw new TypeErrorCtor(`${what}: a status is an integer from 200 to 599`);
      r.status = value;
      return;
    case '/request/view': {
      const view = typeof value === 'string' ? VIEWS[value.toLowerCase()] : undefined;
      if (view === undefined) throw new TypeErrorCtor(`${what}: the view is "JSON" or "error"`);
      r.view = view;
      return;
    }
    case '/request/json/output':
      r.jsonOutput = copyValue(value, what);
      return;
    case '/request/error/message':
      r.errorMessage = scalarText(value, what);
      return;
  }
  if (key.startsWith('/request/params/')) {
    const name = key.slice(16);
    if (name === '') throw new TypeErrorCtor(`${what}: name the parameter after /request/params/`);
    r.params.set(name, scalarText(value, what));
    r.paramsDirty = true;
    return;
  }
  if (key.startsWith('/request/headers/out/')) {
    const name = key.slice(21).toLowerCase();
    if (!HEADER_NAME.test(name)) throw new TypeErrorCtor(`${what}: "${name}" is not a valid header name`);
    if (SERVER_HEADERS.has(name)) throw new TypeErrorCtor(`${what}: the server sets ${name}; a handler cannot`);
    const text = scalarText(value, what);
    if (!HEADER_VALUE.test(text)) throw new TypeErrorCtor(`${what}: ${headerValueFault(text)}`);
    if (!r.headersOut.has(name) && r.headersOut.size >= MAX_HEADERS) throw new TypeErrorCtor(`${what}: a response has at most ${MAX_HEADERS} headers`);
    r.headersOut.set(name, text);
    return;
  }
  if (isReserved(key)) throw unknownKey(what, key);
  r.custom.set(key, copyValue(value, what));
}

function zdelete(key) {
  const r = req();
  checkKey(key, 'zdelete');
  return unset(r, key, `zdelete(${jsonStringify(key)})`);
}

/**
 * Unsets a key for zdelete and zput(key, undefined), with the rules of zput: a read-only key, or
 * a key under /request/, /event/ or /app/ that the runtime does not have, throws a TypeError.
 * Returns whether the key was set.
 */
function unset(r, key, what) {
  if (isReadOnly(key)) throw new TypeErrorCtor(`${what}: ${key} is read-only`);
  const had = peek(r, key) !== undefined;
  switch (key) {
    case '/request/body': r.body = undefined; r.bodyDirty = true; return had;
    case '/request/status': r.status = undefined; return had;
    case '/request/view': r.view = undefined; return had;
    case '/request/json/output': r.jsonOutput = undefined; return had;
    case '/request/error/message': r.errorMessage = undefined; return had;
  }
  if (key.startsWith('/request/params/')) {
    const name = key.slice(16);
    if (name === '') throw new TypeErrorCtor(`${what}: name the parameter after /request/params/`);
    r.params.delete(name);
    r.paramsDirty = true;
  } else if (key.startsWith('/request/headers/out/')) {
    const name = key.slice(21).toLowerCase();
    if (SERVER_HEADERS.has(name)) throw new TypeErrorCtor(`${what}: the server sets ${name}; a handler cannot`);
    r.headersOut.delete(name);
  } else if (isReserved(key)) {
    throw unknownKey(what, key);
  } else {
    r.custom.delete(key);
  }
  return had;
}

/** Status and headers to commit with the first output, as the host expects them. */
function head(r) {
  return { status: r.status, headers: [...r.headersOut] };
}

// ---------------------------------------------------------------------------------------------
// fetch(): an outbound HTTP request through the host (src/sandbox/ops/fetch.ts), to the origins
// the app's svc.json allows. The host does the request; the handler gets a small Response.

function fetchRequest(input, init) {
  if (typeof input !== 'string') throw new TypeErrorCtor('fetch(): the URL must be a string');
  const request = { url: input };
  if (init === undefined || init === null) return request;
  if (typeof init !== 'object') throw new TypeErrorCtor('fetch(): the options must be an object');
  if (init.method !== undefined) {
    if (typeof init.method !== 'string') throw new TypeErrorCtor('fetch(): method must be a string');
    request.method = init.method.toUpperCase();
  }
  if (init.headers !== undefined) {
    const headers = copyValue(init.headers, 'fetch() headers');
    if (headers === null || typeof headers !== 'object' || isArray(headers)) throw new TypeErrorCtor('fetch(): headers must be an object of strings');
    const list = [];
    for (const name of objectKeys(headers)) {
      if (typeof headers[name] !== 'string') throw new TypeErrorCtor(`fetch(): the header ${name} must be a string`);
      list.push([name.toLowerCase(), headers[name]]);
    }
    request.headers = list;
  }
  if (init.body !== undefined && init.body !== null) {
    if (typeof init.body !== 'string') throw new TypeErrorCtor('fetch(): the body must be a string (JSON.stringify objects)');
    request.body = init.body;
  }
  return request;
}

function fetchResponse(reply) {
  const headers = new Map(reply.headers);
  const body = reply.body;
  return freeze({
    status: reply.status,
    ok: reply.status >= 200 && reply.status < 300,
    url: reply.url,
    headers: freeze({
      get: (name) => (headers.has(StringCtor(name).toLowerCase()) ? headers.get(StringCtor(name).toLowerCase()) : null),
      has: (name) => headers.has(StringCtor(name).toLowerCase()),
      entries: () => [...headers],
    }),
    text: () => promiseResolve(body),
    json: () => {
      try {
        return promiseResolve(parseJson(body));
      } catch (e) {
        return promiseReject(e);
      }
    },
  });
}

function svcFetch(input, init) {
  try {
    req();
    return promiseResolve(fetchResponse(host('fetch', fetchRequest(input, init))));
  } catch (e) {
    return promiseReject(e);
  }
}

// ---------------------------------------------------------------------------------------------
// Output, delegation, views, model API, console.

function toText(value, fn) {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return StringCtor(value);
  throw new TypeErrorCtor(`${fn}: write text (a string or a number), not ${describeType(value)}`);
}

function assertOpen(r, fn) {
  if (r.ended) {
    throw new ErrorCtor(`${fn}: the response is already complete (${r.delegated ? 'delegate()' : 'render()'} finished it)`);
  }
}

/**
 * Output is not buffered: each write goes to the host at once. The host queues it on the socket
 * without the handler waiting for that (a one-way call, delivered before anything the handler
 * does next), except every WAIT_EVERY characters or WAIT_EVERY_CALLS writes, where the handler
 * waits until the client has taken the output so far (backpressure), the host has worked through
 * the one-way calls (so a handler cannot flood the host's event loop), and it learns whether the
 * host refused any of it.
 */
const WAIT_EVERY = 64 * 1024; // characters
const WAIT_EVERY_CALLS = 64; // one-way calls

function write(text) {
  const r = req();
  assertOpen(r, 'echo');
  const s = toText(text, 'echo');
  if (s.length === 0 && r.committed) return;
  const payload = r.committed ? '' : jsonStringify(head(r));
  r.committed = true;
  if (r.answered) throw new ErrorCtor('svc: this request was already answered (the server cut it short)');
  r.unwaited += s.length;
  r.oneWayCalls += 1;
  if (r.unwaited < WAIT_EVERY && r.oneWayCalls < WAIT_EVERY_CALLS) {
    try {
      hostRef.applyIgnored(undefined, ['send', payload, s, r.token]);
      return;
    } catch {
      throw new ErrorCtor('svc: the server could not complete this call');
    }
  }
  r.unwaited = 0;
  r.oneWayCalls = 0;
  host('write', payload === '' ? undefined : jsonParse(payload), s);
}

function delegate() {
  const r = req();
  if (r.delegated) throw new ErrorCtor('svc.delegate(): delegate() already completed this response');
  assertOpen(r, 'svc.delegate()');
  if (r.committed) throw new ErrorCtor('svc.delegate(): output was already written; delegate before echo/write');
  const payload = { head: head(r) };
  if (r.paramsDirty) payload.params = [...r.params];
  if (r.bodyDirty) payload.body = r.body === undefined ? null : r.body;
  r.delegated = true;
  r.committed = true;
  r.ended = true;
  if (r.answered) throw new ErrorCtor('svc: this request was already answered (the server cut it short)');
  // Sent one-way: the host performs it while this handler goes on. The next use of the runtime
  // API waits for its result first (req(), settleDelegate); a handler that ends by delegating never
  // waits for it, and the host ends the request only after it.
  try {
    hostRef.applyIgnored(undefined, ['delegate', jsonStringify(payload), '', r.token]);
  } catch {
    throw new ErrorCtor('svc: the server could not complete this call');
  }
  r.pendingDelegate = true;
}

/** Waits for the delegate() sent one-way, and takes what the response became. */
function settleDelegate(r) {
  r.pendingDelegate = false;
  const out = host('delegated');
  r.status = out.status;
  r.headersOut = new Map(out.headers);
  r.member = out.member ? UNFETCHED : undefined;
  r.collectionResult = out.collection ? UNFETCHED : undefined;
}

function render() {
  const r = req();
  assertOpen(r, 'render()');
  const view = r.view ?? 'JSON';
  let text = '';
  if (view === 'JSON') {
    if (r.jsonOutput === undefined) throw new ErrorCtor('render(): the JSON view renders /request/json/output, which is not set');
    text = jsonStringify(r.jsonOutput);
  }
  // The error view renders /request/status (default 500), also after echo() committed the head.
  const payload = { view, head: r.committed ? undefined : head(r), status: r.status, message: r.errorMessage };
  r.committed = true;
  r.ended = true;
  host('render', payload, text);
}

function modelId(id, fn) {
  if (typeof id === 'string' || (typeof id === 'number' && isInteger(id))) return id;
  throw new TypeErrorCtor(`${fn}: an id is an integer or a numeric string`);
}

function queryCopy(query, fn) {
  if (query === undefined) return {};
  const q = copyValue(query, fn);
  if (q === null || typeof q !== 'object' || isArray(q)) throw new TypeErrorCtor(`${fn}: the query is an object of parameters`);
  const keys = objectKeys(q);
  for (let i = 0; i < keys.length; i++) q[keys[i]] = scalarText(q[keys[i]], `${fn}: parameter ${keys[i]}`);
  return q;
}

function memberCopy(member, fn) {
  const m = copyValue(member, fn);
  if (m === null || typeof m !== 'object' || isArray(m)) throw new TypeErrorCtor(`${fn}: a member is an object of fields`);
  return m;
}

function collection(name) {
  req();
  if (typeof name !== 'string') throw new TypeErrorCtor(`svc.collection(): the name must be a string, not ${describeType(name)}`);
  const fn = (m) => `svc.collection(${jsonStringify(name)}).${m}()`;
  const call = (method, args) => {
    req();
    return host('model', { collection: name, method, args });
  };
  call('open', []);
  return freeze({
    list: (query) => call('list', [queryCopy(query, fn('list'))]),
    count: (query) => call('count', [queryCopy(query, fn('count'))]),
    retrieve: (id) => call('retrieve', [modelId(id, fn('retrieve'))]),
    create: (member) => call('create', [memberCopy(member, fn('create'))]),
    update: (id, member) => call('update', [modelId(id, fn('update')), memberCopy(member, fn('update'))]),
    delete: (id) => call('delete', [modelId(id, fn('delete'))]),
  });
}

function formatLogArg(value) {
  if (typeof value === 'string') return value;
  try {
    if (value instanceof ErrorCtor) return `${value.name}: ${value.message}`;
    if (typeof value === 'object' && value !== null) return jsonStringify(value) ?? StringCtor(value);
    return StringCtor(value);
  } catch {
    return '[unprintable]';
  }
}

function logger(level) {
  return function (...args) {
    if (current === null) return;
    const r = current;
    // The call that passes the cap still goes to the host, which notes once that output was dropped.
    if (r.logLines > MAX_LOG_LINES || r.logChars > MAX_LOG_CHARS) return;
    let line = '';
    for (let i = 0; i < args.length; i++) line += (i ? ' ' : '') + formatLogArg(args[i]);
    if (line.length > MAX_LOG_LINE_CHARS) line = `${line.slice(0, MAX_LOG_LINE_CHARS - 1)}…`;
    r.logLines += 1;
    r.logChars += line.length;
    host('log', { level }, line);
  };
}

const svcConsole = freeze({
  log: logger('log'),
  info: logger('log'),
  debug: logger('log'),
  warn: logger('warn'),
  error: logger('error'),
});

const svc = freeze({
  delegate,
  get: zget,
  put: zput,
  contains: zcontains,
  delete: zdelete,
  write,
  render,
  collection,
});

// ---------------------------------------------------------------------------------------------
// Dispatch of the three handler forms (README "Handlers").

const handlers = new Map();

function install(id, factory, collectionName) {
  handlers.set(id, { factory, collectionName });
}

function uninstall(ids) {
  for (const id of jsonParse(ids)) handlers.delete(id);
}

function isClass(fn) {
  if (typeof fn !== 'function') return false;
  try {
    return /^class\b/.test(apply(functionToString, fn, []));
  } catch {
    return false;
  }
}

/**
 * The handler's class: the default export when it is a class, else a class named like the
 * collection (in any case, its `-` left out), declared or imported in the entry's scope, or
 * exported by it under that name (`export { Invoices } from './lib/invoices.ts'`, `export * from …`).
 */
function findClass(ns, forms, collection) {
  let def;
  try {
    def = ns.default;
  } catch {
    def = undefined;
  }
  if (isClass(def)) return def;
  const candidates = forms ? forms.classes : [];
  for (let i = 0; i < candidates.length; i++) if (isClass(candidates[i])) return candidates[i];
  if (typeof collection !== 'string') return undefined;
  const want = collection.replace(/-/g, '').toLowerCase();
  let names;
  try {
    names = objectKeys(ns);
  } catch {
    return undefined;
  }
  for (let i = 0; i < names.length; i++) {
    if (names[i].toLowerCase() !== want) continue;
    let exported;
    try {
      exported = ns[names[i]];
    } catch {
      continue;
    }
    if (isClass(exported)) return exported;
  }
  return undefined;
}

/** Event → method name of a class instance, matched case-insensitively as `onList` or `list`. */
function classMethods(instance) {
  const byName = new Map();
  for (let o = instance; o !== null && o !== ObjectProto; o = getPrototypeOf(o)) {
    const names = getOwnPropertyNames(o);
    for (let i = 0; i < names.length; i++) {
      const lower = names[i].toLowerCase();
      if (byName.has(lower)) continue;
      const d = getOwnPropertyDescriptor(o, names[i]);
      if (d && typeof d.value === 'function' && names[i] !== 'constructor') byName.set(lower, d.value);
    }
  }
  const methods = new Map();
  for (let i = 0; i < EVENTS.length; i++) {
    const e = EVENTS[i];
    const m = byName.get(HANDLER_NAMES[e].toLowerCase()) ?? byName.get(e.toLowerCase());
    if (m !== undefined) methods.set(e, m);
  }
  return methods;
}

/** Event → function of the event-function form: declared at top level or exported. */
function eventFunctions(ns, forms) {
  const fns = new Map();
  for (let i = 0; i < EVENTS.length; i++) {
    const e = EVENTS[i];
    const name = HANDLER_NAMES[e];
    let f = forms ? forms.fns[name] : undefined;
    if (typeof f !== 'function') {
      try {
        f = ns[name];
      } catch {
        f = undefined;
      }
    }
    if (typeof f === 'function') fns.set(e, f);
  }
  return fns;
}

function dispatch(r, ns) {
  let forms;
  try {
    forms = ns.__svc_forms__;
  } catch {
    forms = undefined;
  }
  const cls = findClass(ns, forms, r.collection);
  if (cls !== undefined) {
    const instance = new cls();
    const methods = classMethods(instance);
    const method = methods.get(r.event);
    if (method === undefined) {
      r.notAllowed = [...methods.keys()];
      return undefined;
    }
    return apply(method, instance, []);
  }
  const fns = eventFunctions(ns, forms);
  if (fns.size > 0) {
    const f = fns.get(r.event);
    if (f === undefined) {
      r.notAllowed = [...fns.keys()];
      return undefined;
    }
    return f();
  }
  return undefined; // a top-level script: it ran when the module body ran
}

/**
 * A failure of the handler as the host reports it: the value it threw (`how` is 'threw') or its
 * promise rejected with ('rejected with'). Every value is a failure, `undefined` too
 * (README "Errors": a handler that throws is 500 handler-error).
 */
function describeError(e, how) {
  if (e === undefined) return { name: 'Error', message: `the handler ${how} undefined` };
  try {
    if (e instanceof ErrorCtor) {
      return {
        name: StringCtor(e.name).slice(0, 100),
        message: StringCtor(e.message).slice(0, MAX_MESSAGE_LENGTH),
        stack: StringCtor(e.stack).slice(0, MAX_STACK_LENGTH),
      };
    }
    return { name: 'Error', message: `a non-Error value was thrown: ${formatLogArg(e).slice(0, MAX_MESSAGE_LENGTH)}` };
  } catch {
    return { name: 'Error', message: 'an unprintable value was thrown' };
  }
}

/** How the request ended: `failure` is describeError's, or undefined when the handler returned. */
function outcome(r, failure) {
  const out = { head: r.committed ? undefined : head(r) };
  if (r.notAllowed !== undefined) out.notAllowed = r.notAllowed;
  if (failure !== undefined) out.error = failure;
  return out;
}

/**
 * Serves one request: runs the module body (the top level), then the event function or class
 * method. Returns the outcome as JSON, or "pending" when the handler returned a promise: its
 * outcome then reaches the host through the `finish` call, before this task ends (isolated-vm
 * runs the microtask queue at the end of each task, and nothing else can resume a handler).
 */
function run(id, requestJson, token) {
  requestBoundary();
  const h = handlers.get(id);
  if (h === undefined) throw new ErrorCtor(`svc: handler ${id} is not installed`);
  const r = newRequest(parseJson(requestJson), token);
  current = r;
  /** The request is over for the runtime: its API closes, what was kept for it alone is dropped. */
  const ended = () => {
    if (current === r) current = null;
    requestBoundary();
  };
  let result;
  try {
    result = dispatch(r, h.factory());
  } catch (e) {
    ended();
    return jsonStringify(outcome(r, describeError(e, 'threw')));
  }
  let then;
  if (result !== null && (typeof result === 'object' || typeof result === 'function')) {
    try {
      then = result.then;
    } catch (e) {
      ended();
      return jsonStringify(outcome(r, describeError(e, 'threw')));
    }
  }
  if (typeof then !== 'function') {
    ended();
    return jsonStringify(outcome(r, undefined));
  }
  // The runtime API is closed before describeError reads the value (its getters are handler code).
  const settle = (rejected, e) => {
    ended();
    try {
      hostRef.applySyncPromise(undefined, ['finish', jsonStringify(outcome(r, rejected ? describeError(e, 'rejected with') : undefined)), '', r.token]);
    } catch {
      // The host gave up on this request (it answered already); nothing left to do.
    }
  };
  apply(promiseThen, promiseResolve(result), [() => settle(false), (e) => settle(true, e)]);
  return '"pending"';
}

// ---------------------------------------------------------------------------------------------
// Lockdown: no state may survive from one request to the next, and nothing handler code can
// reach may be changed to intercept this runtime. Globals that hold or deliver state across
// requests are removed; every intrinsic is tamed and frozen; globalThis is frozen.

for (const name of ['FinalizationRegistry', 'WeakRef', 'SharedArrayBuffer', 'Atomics', 'WebAssembly', 'console']) {
  delete globalThis[name];
}
// The segments of Intl.Segmenter (and the older Intl.v8BreakIterator) hold a copy of their text in
// ICU's memory, outside the V8 heap: the isolate's memory limit does not count it, and a small heap
// is rarely collected, so the copies of one handler's requests piled up in the process (25 requests
// held 1 GB), until --max-rss stopped other tenants' handlers. Neither is available to handlers.
delete Intl.Segmenter;
delete Intl.v8BreakIterator;
// Temporal (in Node 24 only with V8's --harmony-temporal, which reaches isolates too) formats dates
// in the calendars below without their checks (its toLocaleString, a DateTimeFormat given a Temporal
// date): not available to handlers either, nor a Date's way to one.
delete globalThis.Temporal;
delete DateProto.toTemporalInstant;
// Every other Intl object holds ICU data outside the V8 heap too (about 28 KB a DateTimeFormat),
// which V8 undercounts, so a small heap is rarely collected: a handler that made a DateTimeFormat
// per value (or called toLocaleString with options, which makes one each call) left 100 MB per
// 10,000 in the process, past its isolate's limit, until --max-rss stopped other tenants'
// handlers. The runtime estimates the ICU memory each constructor and locale method makes, and
// collects the isolate's garbage (V8's gc, which the host exposes and only this closure keeps)
// each ICU_BYTES_PER_COLLECTION of it: an isolate's unreachable ICU objects stay under that, at
// the cost of a collection (a few milliseconds, the handler's CPU time) per that many bytes.
{
  const collect = globalThis.gc;
  // V8 defines it non-configurable: it stays a global, undefined (and frozen with globalThis).
  globalThis.gc = undefined;
  if (typeof collect !== 'function') throw new ErrorCtor('svc: the runtime needs V8 gc exposed (sandbox/bridge.ts)');
  const ICU_BYTES_PER_COLLECTION = 4 * 1024 * 1024;
  let made = 0;
  const madeIcu = (bytes) => {
    made += bytes;
    if (made >= ICU_BYTES_PER_COLLECTION) {
      made = 0;
      collect();
    }
  };
  const construct = Reflect.construct;
  const create = Object.create;
  const canonicalLocales = Intl.getCanonicalLocales;
  const dateTimeOptions = Intl.DateTimeFormat.prototype.resolvedOptions;
  const displayNamesOptions = Intl.DisplayNames.prototype.resolvedOptions;
  // A DateTimeFormat holds 28 KB; in these calendars some locales' patterns spell numbers with an
  // algorithmic numbering system (Hebrew numerals, Japanese era years, Chinese day names), and
  // a formatter holds up to 384 KB (he-u-ca-hebrew with dateStyle full), 438 KB with formatRange's.
  const DATE_TIME_BYTES = 28 * 1024;
  const HEAVY_DATE_TIME_BYTES = 448 * 1024;
  const HEAVY_CALENDARS = ['chinese', 'dangi', 'hebrew', 'japanese'];
  const HEAVY_CALENDAR_TAG = /-ca-(?:chinese|dangi|hebrew|japanese)(?![0-9a-z])/i;
  const dateTimeBytes = (calendar) => (HEAVY_CALENDARS.includes(calendar) ? HEAVY_DATE_TIME_BYTES : DATE_TIME_BYTES);
  // V8 also keeps a date-time pattern generator (35-75 KB) for each locale, calendar, numbering
  // system and hour cycle a date format is made for, in one cache for the whole process that
  // nothing empties: each new combination is admitted by the host first (src/sandbox/ops/intl.ts),
  // which bounds them per app and per process, and refused with a RangeError past that. The key is
  // read from the arguments once, and V8 is given what was read: the locales, when not one string,
  // as their canonical list (one string stays, so that V8's own cache still answers a Date's
  // repeated calls), and the options that choose a pattern as own values (strings, hour12 a
  // boolean) on an object whose prototype is the handler's options (the rest is read from there):
  // no getter can show V8 another combination than the one admitted. They are read in V8's order;
  // when reading one throws, V8 is given the values before it and a getter that throws the same
  // (so V8 throws an earlier value's RangeError, or that), and makes no format: nothing to admit.
  // A DateTimeFormat's options, in the order V8 reads them; the first five choose its pattern.
  const DATE_TIME_OPTIONS = [
    'localeMatcher', 'calendar', 'numberingSystem', 'hour12', 'hourCycle', 'timeZone', 'weekday', 'era', 'year', 'month',
    'day', 'dayPeriod', 'hour', 'minute', 'second', 'fractionalSecondDigits', 'timeZoneName', 'formatMatcher', 'dateStyle', 'timeStyle',
  ];
  const PATTERN_OPTIONS = DATE_TIME_OPTIONS.slice(0, 5);
  const RangeErrorIntl = RangeError;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const admittedKeys = new Set();
  /** Asks the host to admit `key` (a date pattern's, or 'locale ' and a base name), once per isolate; a RangeError if refused. */
  const admitIntl = (key) => {
    if (apply(setHas, admittedKeys, [key])) return;
    let refusal;
    try {
      refusal = hostRef.applySyncPromise(undefined, ['intl', key, '', 0]);
    } catch {
      throw new ErrorCtor('svc: the server could not complete this call');
    }
    if (refusal !== '') throw new RangeErrorIntl(refusal);
    apply(setAdd, admittedKeys, [key]);
  };
  /** Admits the pattern of a date format made from `args` (replaced as above); whether its calendar is a heavy one. */
  const datePattern = (args) => {
    const locales = args[0];
    const list = locales === undefined ? [] : canonicalLocales(locales);
    if (locales !== undefined && typeof locales !== 'string') args[0] = list;
    let heavy = false;
    for (let i = 0; i < list.length; i++) heavy ||= HEAVY_CALENDAR_TAG.test(list[i]);
    let key = jsonStringify(list);
    const options = args[1];
    if ((typeof options === 'object' && options !== null) || typeof options === 'function') {
      const read = {};
      const values = [];
      for (let i = 0; i < PATTERN_OPTIONS.length; i++) {
        const name = PATTERN_OPTIONS[i];
        let value;
        try {
          const v = options[name];
          value = v === undefined ? undefined : name === 'hour12' ? !!v : `${v}`;
        } catch (e) {
          read[name] = { get: () => { throw e; }, enumerable: true };
          args[1] = create(options, read);
          return false;
        }
        read[name] = { value, enumerable: true };
        values[i] = value === undefined ? null : value;
      }
      const calendar = read.calendar.value;
      if (calendar !== undefined) heavy ||= HEAVY_CALENDARS.includes(calendar.toLowerCase());
      args[1] = create(options, read);
      key = jsonStringify([list, values]);
    }
    admitIntl(key);
    return heavy;
  };
  // ICU keeps what its astronomical calendars compute (the months of the Islamic calendar, the
  // years of the Hebrew, Chinese and Korean ones) for every date it formats, in caches of the
  // process that nothing empties. Formatting a date a month across a Date's range (±271,821
  // years) left 384 MiB in islamic (islamic-rgsa shares its cache), 96 MiB in chinese, 94 MiB in
  // dangi and 48 MiB in hebrew (Node 24.9, ICU 77; the other calendars keep nothing): one tenant
  // could add 620 MiB to the process for good, past a container's --max-rss, and again after each
  // restart. In these calendars, dates of (Gregorian) years -9999 to 9999 only are formatted: all
  // their months keep 21 MiB at most, once per process (a day more either side, for time zones);
  // others are refused with a RangeError. Every DateTimeFormat is made by the constructor below,
  // which notes those in these calendars: their format, formatToParts, formatRange and
  // formatRangeToParts check the dates. A Date's locale methods check theirs (below).
  const KEPT_CALENDARS = ['islamic', 'islamic-rgsa', 'chinese', 'dangi', 'hebrew'];
  const DAY_MS = 24 * 60 * 60 * 1000;
  const FIRST_TIME = Date.UTC(-9999, 0, 1) - DAY_MS;
  const LAST_TIME = Date.UTC(10000, 0, 1) + DAY_MS;
  const MAX_TIME = 8.64e15; // a Date's range, either side of 1970 (ECMA-262 TimeClip)
  /** Whether V8 formats the time value `t` (it refuses NaN and what is past MAX_TIME itself). */
  const validTime = (t) => t >= -MAX_TIME && t <= MAX_TIME;
  /** Whether the time value `t` is one V8 formats, outside the years. */
  const farTime = (t) => (t < FIRST_TIME || t > LAST_TIME) && validTime(t);
  const refuseYears = (calendar) => {
    throw new RangeErrorIntl(`svc: dates outside the years -9999 to 9999 cannot be formatted in the ${calendar} calendar (ICU keeps every such computation for the life of the server process); format them in another calendar`);
  };
  const weakMapGet = WeakMap.prototype.get;
  const weakMapSet = WeakMap.prototype.set;
  // Called bound, not by `apply` (a third faster): `format` is read at every call of it.
  const v8FormatOf = Function.prototype.call.bind(getOwnPropertyDescriptor(Intl.DateTimeFormat.prototype, 'format').get);
  // The formatters in those calendars, and their calendar.
  const keptCalendars = new WeakMap();
  const keptCalendarOf = Function.prototype.call.bind(weakMapGet, keptCalendars);
  // The bound `format` V8 keeps for each of them, and the one handlers get instead.
  const checkedFormats = new WeakMap();
  const checkedFormatOf = Function.prototype.call.bind(weakMapGet, checkedFormats);
  let keptFormatters = false;
  const timeOf = Function.prototype.call.bind(Date.prototype.getTime);
  /** Notes a new DateTimeFormat in `calendar`, one of those or not; returns `calendar`. */
  const madeFormatter = (formatter, calendar) => {
    if (!KEPT_CALENDARS.includes(calendar)) return calendar;
    keptFormatters = true;
    apply(weakMapSet, keptCalendars, [formatter, calendar]);
    const bound = v8FormatOf(formatter);
    // As V8's: no date is now; otherwise it is read as a number once, and V8 is given the number.
    const checked = (date) => {
      if (date === undefined) return bound();
      const time = +date;
      if (farTime(time)) refuseYears(calendar);
      return bound(time);
    };
    defineProperty(checked, 'name', { value: '' });
    apply(weakMapSet, checkedFormats, [bound, checked]);
    return calendar;
  };
  // `format` is V8's bound function but for those formatters (the one V8 keeps, so still the same
  // function every time); `this` may also be an object chained to a formatter as below.
  const formatOf = getOwnPropertyDescriptor({
    get format() {
      const bound = v8FormatOf(this);
      return keptFormatters ? checkedFormatOf(bound) ?? bound : bound;
    },
  }, 'format').get;
  defineProperty(Intl.DateTimeFormat.prototype, 'format', { get: formatOf });
  // ECMA-402's [[FallbackSymbol]]: where its legacy constructor call (ChainDateTimeFormat) puts
  // the formatter on `this`. V8 names it nowhere; a NumberFormat chained so shows it.
  const legacyObject = create(Intl.NumberFormat.prototype);
  apply(Intl.NumberFormat, legacyObject, []);
  const FALLBACK_SYMBOL = getOwnPropertySymbols(legacyObject)[0];
  const isPrototypeOf = Object.prototype.isPrototypeOf;
  // Estimated bytes of ICU memory per object, or a function of the new object (measured with RSS,
  // 5,000 of each held in one isolate).
  const CONSTRUCTORS = {
    DateTimeFormat: (format) => dateTimeBytes(madeFormatter(format, apply(dateTimeOptions, format, []).calendar)),
    RelativeTimeFormat: 9216, DurationFormat: 10240, PluralRules: 3072,
    // Display names of date fields hold a DateTimePatternGenerator (39 KB).
    DisplayNames: (names) => (apply(displayNamesOptions, names, []).type === 'dateTimeField' ? 40 * 1024 : 3072),
    NumberFormat: 2048, Collator: 2048, ListFormat: 2048, Locale: 1024,
  };
  for (const name of objectKeys(CONSTRUCTORS)) {
    const Original = Intl[name];
    if (typeof Original !== 'function') continue;
    const bytes = CONSTRUCTORS[name];
    const counted = (object) => {
      madeIcu(typeof bytes === 'function' ? bytes(object) : bytes);
      return object;
    };
    // Also subclasses (their super() is this construct) and calls without new, which construct too.
    const isDateTimeFormat = name === 'DateTimeFormat';
    const Counted = new Proxy(Original, {
      construct(target, args, newTarget) {
        if (isDateTimeFormat) datePattern(args);
        return counted(construct(target, args, newTarget));
      },
      apply(target, thisArg, args) {
        if (!isDateTimeFormat) return counted(apply(target, thisArg, args));
        datePattern(args);
        // V8 would make the formatter out of sight and, when `this` inherits from its prototype
        // (ChainDateTimeFormat), define it on `this` (a Proxy's trap would be given it) unnoted:
        // it is made here, and chained as V8 does.
        const formatter = counted(construct(target, args));
        if (!apply(isPrototypeOf, target.prototype, [thisArg])) return formatter;
        defineProperty(thisArg, FALLBACK_SYMBOL, { value: formatter, writable: false, enumerable: false, configurable: false });
        return thisArg;
      },
    });
    // Also every instance's constructor, so that no path leads to the uncounted original.
    defineProperty(Original.prototype, 'constructor', { value: Counted, writable: false, enumerable: false, configurable: false });
    defineProperty(Intl, name, { value: Counted, writable: false, enumerable: false, configurable: false });
  }
  // Methods that make an ICU object per call, unless V8's cache of one per kind answers: no
  // options, and locales undefined or the same string as the last such call of that kind (a
  // method without a kind makes one every call). Array and typed-array toLocaleString call their
  // elements' method, one of these.
  const lastLocales = {};
  // `bytes` is a number, or a function of the arguments (which it may replace) and the receiver.
  // `check`, given for a Date's methods, is called for a date outside the years, with the
  // arguments as V8 is given them and V8's method, last: after the handler's getters that `bytes`
  // ran, and the date's time read then (V8 reads it first): no getter can move it once checked.
  const countedMethod = (proto, name, kind, bytes, check) => {
    const original = proto[name];
    const method = {
      [name](...args) {
        const locales = args[name === 'localeCompare' ? 1 : 0];
        const options = args[name === 'localeCompare' ? 2 : 1];
        const cached = kind !== undefined && options === undefined && (locales === undefined || typeof locales === 'string');
        if (!cached || lastLocales[kind] !== locales || !hasOwn(lastLocales, kind)) {
          // Counted (and a date pattern admitted) before V8's cache is taken to hold these locales:
          // a refusal leaves it as it was, so the same call again is refused again, not made.
          madeIcu(typeof bytes === 'function' ? bytes(args, this) : bytes);
          if (cached) lastLocales[kind] = locales;
        }
        if (check !== undefined && farTime(timeOf(this))) check(args, original);
        return apply(original, this, args);
      },
    }[name];
    defineProperty(method, 'length', { value: original.length });
    defineProperty(proto, name, { value: method, writable: true, enumerable: false, configurable: true });
  };
  // A Date's locale methods make a DateTimeFormat from their arguments (datePattern admits it and
  // tells whether its calendar is a heavy one).
  const localeDateBytes = (args) => (datePattern(args) ? HEAVY_DATE_TIME_BYTES : DATE_TIME_BYTES);
  const DateCtor = Date;
  const CountedDateTimeFormat = Intl.DateTimeFormat;
  // V8's own methods make their formatter out of sight: for a date outside the years, the calendar
  // they resolve is asked first of a formatter made of the same locales and of the options that
  // choose a pattern, as datePattern left them (own values, read once): the combination admitted
  // for the call. About 50 µs, for such dates only. Where that formatter cannot be made (an
  // invalid option), V8's method throws its own error, for an ordinary date.
  const checkDateYears = (args, v8Method) => {
    const options = args[1];
    // Null options are V8's TypeError, before anything is formatted.
    if (options === null) return;
    let read = options;
    if (typeof options === 'object' || typeof options === 'function') {
      read = { __proto__: null };
      for (let i = 0; i < PATTERN_OPTIONS.length; i++) read[PATTERN_OPTIONS[i]] = options[PATTERN_OPTIONS[i]];
    }
    let calendar;
    try {
      calendar = apply(dateTimeOptions, new CountedDateTimeFormat(args[0], read), []).calendar;
    } catch (e) {
      apply(v8Method, new DateCtor(0), args);
      throw e;
    }
    if (KEPT_CALENDARS.includes(calendar)) refuseYears(calendar);
  };
  countedMethod(Date.prototype, 'toLocaleString', 'dateTime', localeDateBytes, checkDateYears);
  countedMethod(Date.prototype, 'toLocaleDateString', 'date', localeDateBytes, checkDateYears);
  countedMethod(Date.prototype, 'toLocaleTimeString', 'time', localeDateBytes, checkDateYears);
  // With options, a Date's locale methods make a formatter each call (V8 keeps one only for calls
  // without): about 50 µs and 28 KB of ICU memory a call, and a collection every 150 calls. So the
  // formatters made for them are kept, by method, locales and options, up to DATE_FORMATTERS, for
  // the request that made them (then dropped and counted as garbage: 64 in the Hebrew calendar hold
  // 20 MiB outside the isolate's limit), and a call formats with its own: what it returns is what
  // the method returns (ECMA-402's ToLocaleString: the options with the method's default fields,
  // then format). Everything is read once, in V8's order, and V8 is handed what was read: the
  // locales as their canonical list (Intl.getCanonicalLocales reads them as V8 does, and throws
  // its errors before any option is read), the options' 20 values; a value that is no primitive, or
  // whose reading throws, and a full cache, go the method's own way with the values read before it
  // (V8 reads the rest from the handler's options). Nothing else from the handler is read again, so
  // an answer cannot depend on how often something was read, nor tell whether a formatter was kept.
  const DATE_FORMATTERS = 64;
  const DATE_FIELDS = ['weekday', 'year', 'month', 'day'];
  const TIME_FIELDS = ['dayPeriod', 'hour', 'minute', 'second', 'fractionalSecondDigits'];
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapClear = Map.prototype.clear;
  const mapSize = getOwnPropertyDescriptor(Map.prototype, 'size').get;
  const isNaNValue = Number.isNaN;
  const dateFormatters = new Map();
  const canonicalStrings = new Map();
  // The estimated ICU bytes of the kept formatters: garbage once they are dropped.
  let keptBytes = 0;
  requestBoundary = () => {
    apply(mapClear, canonicalStrings, []);
    if (apply(mapSize, dateFormatters, []) === 0) return;
    apply(mapClear, dateFormatters, []);
    const bytes = keptBytes;
    keptBytes = 0;
    madeIcu(bytes);
  };
  /** Options for V8: the first `n` values read (`values`), `last` (a descriptor) for the next, the rest from `options`. */
  const handOff = (options, values, n, last) => {
    const props = {};
    for (let i = 0; i < n; i++) props[DATE_TIME_OPTIONS[i]] = { value: values[i], enumerable: true };
    props[DATE_TIME_OPTIONS[n]] = { ...last, enumerable: true };
    return create(options, props);
  };
  const cachedDateMethod = (name, required, defaults) => {
    const uncached = Date.prototype[name];
    const method = {
      [name](...args) {
        const time = timeOf(this); // a TypeError for what is not a Date, as the method's
        // As the method: an invalid date is "Invalid Date" before its locales and options are read.
        if (isNaNValue(time)) return 'Invalid Date';
        const options = args[1];
        if (typeof options !== 'object' || options === null) return apply(uncached, this, args);
        const locales = args[0];
        let list;
        if (typeof locales === 'string') {
          // One string is read the same every time: its list is kept with the formatters.
          list = apply(mapGet, canonicalStrings, [locales]);
          if (list === undefined) {
            list = canonicalLocales(locales);
            if (apply(mapSize, canonicalStrings, []) < DATE_FORMATTERS) apply(mapSet, canonicalStrings, [locales, list]);
          }
        } else if (locales !== undefined) list = canonicalLocales(locales);
        const raw = [];
        const values = [];
        const read = {};
        for (let i = 0; i < DATE_TIME_OPTIONS.length; i++) {
          let v;
          try {
            v = options[DATE_TIME_OPTIONS[i]];
          } catch (e) {
            return apply(uncached, this, [list, handOff(options, raw, i, { get: () => { throw e; } })]);
          }
          if ((v !== null && typeof v === 'object') || typeof v === 'function' || typeof v === 'symbol') {
            return apply(uncached, this, [list, handOff(options, raw, i, { value: v })]);
          }
          raw[i] = v;
          // Each value with its type: 1 and '1', null and NaN must not share a formatter.
          values[i] = v === undefined ? 0 : [typeof v, StringCtor(v)];
          if (v !== undefined) read[DATE_TIME_OPTIONS[i]] = v;
        }
        const key = jsonStringify([name, list === undefined ? 0 : list, values]);
        let format = apply(mapGet, dateFormatters, [key]);
        if (format === undefined) {
          // ECMA-402 ToDateTimeOptions: a method's default fields when the options name none.
          let needDefaults = read.dateStyle === undefined && read.timeStyle === undefined;
          if (required !== 'time') for (let i = 0; i < DATE_FIELDS.length; i++) if (read[DATE_FIELDS[i]] !== undefined) needDefaults = false;
          if (required !== 'date') for (let i = 0; i < TIME_FIELDS.length; i++) if (read[TIME_FIELDS[i]] !== undefined) needDefaults = false;
          // The method's own TypeErrors (timeStyle for a date, dateStyle for a time), and a full cache.
          if ((required === 'date' && read.timeStyle !== undefined) || (required === 'time' && read.dateStyle !== undefined) || apply(mapSize, dateFormatters, []) >= DATE_FORMATTERS) {
            return apply(uncached, this, [list, read]);
          }
          if (needDefaults && defaults !== 'time') read.year = read.month = read.day = 'numeric';
          if (needDefaults && defaults !== 'date') read.hour = read.minute = read.second = 'numeric';
          const formatter = new CountedDateTimeFormat(list, read);
          format = apply(formatOf, formatter, []);
          apply(mapSet, dateFormatters, [key, format]);
          keptBytes += dateTimeBytes(apply(dateTimeOptions, formatter, []).calendar);
        }
        return format(time);
      },
    }[name];
    defineProperty(method, 'length', { value: 0 });
    defineProperty(Date.prototype, name, { value: method, writable: true, enumerable: false, configurable: true });
  };
  cachedDateMethod('toLocaleString', 'any', 'all');
  cachedDateMethod('toLocaleDateString', 'date', 'date');
  cachedDateMethod('toLocaleTimeString', 'time', 'time');
  countedMethod(Number.prototype, 'toLocaleString', 'number', 2048);
  countedMethod(BigInt.prototype, 'toLocaleString', 'number', 2048);
  countedMethod(String.prototype, 'localeCompare', 'collator', 2048);
  // A Locale's maximize() and minimize() make another Locale without its constructor.
  countedMethod(Intl.Locale.prototype, 'maximize', undefined, 1024);
  countedMethod(Intl.Locale.prototype, 'minimize', undefined, 1024);
  // A Locale's collations, hour cycles, numbering systems and week info open ICU's resource bundles
  // for the locale as written (not one V8 resolved among those it has): ICU keeps an entry for each
  // name it tried (de_DE_V1_A1, then de_DE_V1, …), found or not, for the life of the process, about
  // 2 KB a call of a locale with new variants, without end (test: attack-intl-locale-data). Each new
  // base name (keywords open nothing) is admitted by the host first, as a date pattern is. Its
  // calendars, time zones, text info, maximize and minimize open no such data.
  const localeBaseName = getOwnPropertyDescriptor(Intl.Locale.prototype, 'baseName').get;
  /** Admits the data of `locale`'s base name; nothing for what is no Locale (the method throws its own TypeError). */
  const admitLocaleData = (locale) => {
    let baseName;
    try {
      baseName = apply(localeBaseName, locale, []);
    } catch {
      return;
    }
    admitIntl(`locale ${baseName}`);
  };
  for (const name of ['getCollations', 'getHourCycles', 'getNumberingSystems', 'getWeekInfo', 'collations', 'hourCycles', 'numberingSystems', 'weekInfo']) {
    const d = getOwnPropertyDescriptor(Intl.Locale.prototype, name);
    if (d === undefined) continue;
    const original = d.get ?? d.value;
    const wrapped = {
      [name](...args) {
        admitLocaleData(this);
        return apply(original, this, args);
      },
    }[name];
    defineProperty(wrapped, 'name', { value: original.name });
    defineProperty(wrapped, 'length', { value: original.length });
    defineProperty(Intl.Locale.prototype, name, d.get ? { ...d, get: wrapped } : { ...d, value: wrapped });
  }
  // formatRange and formatRangeToParts give their DateTimeFormat an ICU interval format the first
  // time (56 KB, which it keeps), and a copy of it to each call.
  const ranged = new WeakSet();
  const rangedHas = WeakSet.prototype.has;
  const rangedAdd = WeakSet.prototype.add;
  const rangeBytes = (args, format) => {
    if ((typeof format !== 'object' && typeof format !== 'function') || format === null || apply(rangedHas, ranged, [format])) return 0;
    apply(rangedAdd, ranged, [format]);
    return 56 * 1024;
  };
  countedMethod(Intl.DateTimeFormat.prototype, 'formatRange', undefined, rangeBytes);
  countedMethod(Intl.DateTimeFormat.prototype, 'formatRangeToParts', undefined, rangeBytes);
  // The methods that format dates on the formatter itself (not on an object chained to one, as
  // V8): the dates read as numbers once, as V8 (formatRange's only when both are given), and V8 is
  // given the numbers.
  for (const [name, dates] of [['formatToParts', 1], ['formatRange', 2], ['formatRangeToParts', 2]]) {
    const original = Intl.DateTimeFormat.prototype[name];
    const method = {
      [name](start, end) {
        const calendar = keptFormatters ? keptCalendarOf(this) : undefined;
        if (calendar === undefined) return apply(original, this, [start, end]);
        if (dates === 1 && start !== undefined) {
          start = +start;
          if (farTime(start)) refuseYears(calendar);
        } else if (dates === 2 && start !== undefined && end !== undefined) {
          start = +start;
          end = +end;
          if ((farTime(start) && validTime(end)) || (farTime(end) && validTime(start))) refuseYears(calendar);
        }
        return apply(original, this, [start, end]);
      },
    }[name];
    defineProperty(method, 'length', { value: original.length });
    defineProperty(Intl.DateTimeFormat.prototype, name, { value: method, writable: true, enumerable: false, configurable: true });
  }
}
// Resizable ArrayBuffers (`new ArrayBuffer(n, { maxByteLength })`) reserve address space up front
// and commit memory on `resize()` without passing through the allocator that counts an isolate's
// memory against its limit: one handler could hold gigabytes in a 16 MiB isolate, or reserve
// terabytes of address space until the process aborts. The constructor handlers see refuses the
// option; it is also the prototype's `constructor` (and so every species lookup), which leaves no
// other way to the original. Fixed-length buffers and typed arrays are allocated through the
// counting allocator as before.
{
  const OriginalArrayBuffer = ArrayBuffer;
  const construct = Reflect.construct;
  const RangeErrorCtor = RangeError;
  const SafeArrayBuffer = new Proxy(OriginalArrayBuffer, {
    construct(target, args, newTarget) {
      const options = args[1];
      if ((typeof options === 'object' && options !== null) || typeof options === 'function') {
        if (options.maxByteLength !== undefined) {
          throw new RangeErrorCtor('svc: resizable ArrayBuffers (maxByteLength) are not available to handlers; allocate a fixed-length buffer');
        }
      }
      // Only the length goes on: V8 never reads the options object (a getter cannot change its answer).
      return construct(target, [args[0]], newTarget);
    },
  });
  defineProperty(OriginalArrayBuffer.prototype, 'constructor', { value: SafeArrayBuffer, writable: false, enumerable: false, configurable: false });
  defineProperty(globalThis, 'ArrayBuffer', { value: SafeArrayBuffer, writable: false, enumerable: false, configurable: false });
}

// RegExp's legacy static properties (RegExp.$1, lastMatch, …) would show one request the last
// match of the previous one.
for (const name of getOwnPropertyNames(RegExp)) {
  if (name.startsWith('$') || ['input', 'lastMatch', 'lastParen', 'leftContext', 'rightContext'].includes(name)) delete RegExp[name];
}

const globals = {
  fetch: svcFetch,
  svc,
  svc_delegate: delegate,
  zget,
  zput,
  zcontains,
  zdelete,
  echo: write,
  render,
  console: svcConsole,
};
for (const name of objectKeys(globals)) {
  defineProperty(globalThis, name, { value: globals[name], writable: false, enumerable: false, configurable: false });
}

/**
 * Freezing a prototype makes `obj.toString = …` throw on objects that inherit it (the "override
 * mistake"). For the properties that ordinary code assigns so, the data property becomes an
 * accessor whose setter gives the object its own property instead (the approach of SES's
 * "moderate" taming).
 */
function tame(obj, names) {
  for (const name of names) {
    const d = getOwnPropertyDescriptor(obj, name);
    if (!d || !('value' in d) || !d.configurable) continue;
    const value = d.value;
    defineProperty(obj, name, {
      get: function () { return value; },
      set: function (v) {
        if (this === obj) throw new TypeErrorCtor(`Cannot assign to read only property '${StringCtor(name)}' of a frozen intrinsic`);
        if (hasOwn(this, name)) this[name] = v;
        else defineProperty(this, name, { value: v, writable: true, enumerable: true, configurable: true });
      },
      enumerable: d.enumerable,
      configurable: false,
    });
  }
}
tame(Object.prototype, getOwnPropertyNames(Object.prototype));
tame(Array.prototype, ['constructor', 'toString', 'push', 'concat', 'join']);
tame(Function.prototype, ['constructor', 'bind', 'name', 'toString', 'apply', 'call']);
for (const E of [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, AggregateError]) {
  tame(E.prototype, ['constructor', 'message', 'name', 'toString']);
}
tame(Promise.prototype, ['constructor']);

/** Objects not reachable from globalThis by property walks: hidden intrinsics. */
function hiddenIntrinsics() {
  const list = [];
  const add = (f) => {
    try {
      const v = f();
      if (v !== undefined && v !== null) list.push(v);
    } catch {
      // not available in this engine version
    }
  };
  add(() => getPrototypeOf(function* () {}));
  add(() => getPrototypeOf(async function () {}));
  add(() => getPrototypeOf(async function* () {}));
  add(() => getPrototypeOf((function* () {})()));
  add(() => getPrototypeOf((async function* () {})()));
  add(() => getPrototypeOf([][Symbol.iterator]()));
  add(() => getPrototypeOf(new Map().entries()));
  add(() => getPrototypeOf(new Set().values()));
  add(() => getPrototypeOf(''[Symbol.iterator]()));
  add(() => getPrototypeOf(/x/[Symbol.matchAll]('')));
  add(() => getPrototypeOf(Int8Array));
  add(() => getPrototypeOf([].values().map((x) => x)));
  add(() => getPrototypeOf(Iterator.from({ next() { return { done: true }; } })));
  // The accessor of every Error's own `stack` (V8 gives each error the same getter and setter):
  // reachable from any error, from no property walk of globalThis.
  add(() => getOwnPropertyDescriptor(new ErrorCtor(), 'stack')?.get);
  add(() => getOwnPropertyDescriptor(new ErrorCtor(), 'stack')?.set);
  add(() => getOwnPropertyDescriptor(function () { return arguments; }(), 'callee')?.get);
  add(() => (function () { 'use strict'; return getOwnPropertyDescriptor(arguments, 'callee').get; })());
  return list;
}

function deepFreeze(roots) {
  const queue = [...roots];
  const done = new Set();
  while (queue.length > 0) {
    const o = queue.pop();
    if ((typeof o !== 'object' && typeof o !== 'function') || o === null || done.has(o)) continue;
    done.add(o);
    freeze(o);
    queue.push(getPrototypeOf(o));
    for (const k of [...getOwnPropertyNames(o), ...getOwnPropertySymbols(o)]) {
      const d = getOwnPropertyDescriptor(o, k);
      if (d === undefined) continue;
      if ('value' in d) queue.push(d.value);
      else queue.push(d.get, d.set);
    }
  }
  return done.size;
}

// The JSON reader, for the host's test that it agrees with src/model/json-text.ts; bridge.ts takes the other three.
const json = { parse: parseJson, hasEscapedName, readValid };

deepFreeze([globalThis, ...hiddenIntrinsics(), install, uninstall, run, json]);
if (!isFrozen(globalThis) || !isFrozen(Object.prototype)) throw new ErrorCtor('svc: lockdown failed');

return freeze({ install, uninstall, run, json });
