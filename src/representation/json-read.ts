// Reading a JSON member body (README "The default handler"): one object, nested at most 100 deep, each name once.

import { SvcError } from '../errors.ts';
import { JsonTextError, readJson } from '../model/json-text.ts';

/**
 * Deepest nesting of arrays and objects accepted in a body (the body object is level 1). A member
 * is an object of scalar fields; handlers hold values of at most 100 levels (README, Limits), and
 * copying a deeper one into an isolate overflows its stack.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * The fields of a JSON member body. Throws SvcError `invalid-json` when the body is empty, nested
 * deeper than MAX_JSON_DEPTH, not JSON, not an object, or names a field twice.
 */
export function readJsonMember(text: string): Record<string, unknown> {
  // trim() takes a byte order mark for white space: a body of one is empty too.
  if (text.trim() === '') invalid('The body is empty: send a JSON object of member fields.');
  let value: unknown;
  try {
    // Names repeat at the top level only: a nested object is no member field (validation refuses
    // it as the wrong type). invalid-json, not invalid-member: which of two values of a field was
    // meant cannot be known, whatever the model or handler, as a duplicate <dt> is invalid-atom.
    value = readJson(text, { maxDepth: MAX_JSON_DEPTH, uniqueNames: 'top-level' });
  } catch (e) {
    if (!(e instanceof JsonTextError)) throw e;
    const fault = e.fault;
    if (fault.kind === 'depth') invalid(`The body is nested deeper than ${MAX_JSON_DEPTH} levels: send a JSON object of member fields.`);
    if (fault.kind === 'syntax') invalid(`The body is not valid JSON: ${fault.message}`);
    invalid(`${fault.name === undefined ? 'A field' : `The field "${shown(fault.name)}"`} appears more than once in the JSON object: send each field once.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid('The body must be a JSON object of member fields.');
  return value as Record<string, unknown>;
}

function invalid(message: string): never {
  throw new SvcError('invalid-json', message);
}

/** A client-sent name for an error message, cut short: the message must not echo a whole body. */
function shown(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}
