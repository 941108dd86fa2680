// Member validation for create and update: every offending field is named in one 400.

import { SvcError, validationError, type FieldError } from '../errors.ts';
import type { FieldDef, Member, MemberData, Model } from './types.ts';
import { holdsText, ownValue, parseValue } from './values.ts';

/** True when `raw` means "no value": missing, null, or (from text) empty for a non-string type. */
function isAbsent(field: FieldDef, raw: unknown, text: boolean): boolean {
  return raw === undefined || raw === null || (text && typeof raw === 'string' && raw.trim() === '' && !holdsText(field.type));
}

/**
 * The body's keys: `updated` is ignored, `id` is left to `checkId`, anything that is not a
 * declared field is an error.
 */
function checkKeys(model: Model, values: Record<string, unknown>, errors: FieldError[], checkId: (raw: unknown) => string | undefined): void {
  for (const key of Object.keys(values)) {
    if (key === 'updated') continue;
    if (key === 'id') {
      const message = checkId(values.id);
      if (message) errors.push({ field: 'id', message });
    } else if (!model.fields.has(key)) errors.push({ field: key, message: 'is not a field of this model' });
  }
}

/** Parses a present value into `data`, or records why it cannot be. */
function accept(field: FieldDef, raw: unknown, text: boolean, data: MemberData, errors: FieldError[]): void {
  const parsed = parseValue(field, raw, text);
  if (parsed.ok) data[field.name] = parsed.value;
  else errors.push({ field: field.name, message: parsed.message });
}

/**
 * Text values (an Atom entry's) as values of the model's field types, so that a handler sees the
 * same types whatever representation the client sent: '' of a non-string field is absent (left
 * out), a value that does not parse is a 400 naming every such field, before any handler runs.
 * Keys that are not fields stay as they are (validation names them).
 */
export function typeFromText(model: Model, values: Record<string, unknown>): Record<string, unknown> {
  const errors: FieldError[] = [];
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, raw] of Object.entries(values)) {
    const field = model.fields.get(key);
    if (!field || key === 'updated') {
      out[key] = raw;
      continue;
    }
    if (isAbsent(field, raw, true)) continue;
    const parsed = parseValue(field, raw, true);
    if (parsed.ok) out[key] = parsed.value;
    else errors.push({ field: key, message: parsed.message });
  }
  // Failing anyway: name every other problem of the body too, as validation would.
  if (errors.length) {
    for (const key of Object.keys(values)) if (!model.fields.has(key)) errors.push({ field: key, message: 'is not a field of this model' });
    throw invalid(errors);
  }
  return out;
}

/**
 * Validates a body for create: declared fields only (`updated` is ignored; `id` is assigned by
 * the store), values of the right type, required fields present after defaults.
 * `text` is true when values are strings to convert (Atom).
 */
export function validateCreate(model: Model, values: Record<string, unknown>, text: boolean): MemberData {
  const errors: FieldError[] = [];
  const data: MemberData = Object.create(null);
  checkKeys(model, values, errors, () => 'is assigned by the server; leave it out when creating');
  for (const field of model.declared) {
    const raw = ownValue(values, field.name);
    if (!isAbsent(field, raw, text)) accept(field, raw, text, data, errors);
    else if (field.defaultValue !== undefined) data[field.name] = field.defaultValue;
    else if (field.required) errors.push({ field: field.name, message: 'is required' });
  }
  if (errors.length) throw invalid(errors);
  return data;
}

/**
 * Validates a body for update of `existing`: every editable declared field is replaced (absent
 * fields become absent); a non-editable field keeps its value and may only be repeated unchanged;
 * a body `id` must equal the member's id.
 */
export function validateUpdate(model: Model, values: Record<string, unknown>, text: boolean, existing: Member): MemberData {
  const errors: FieldError[] = [];
  const data: MemberData = Object.create(null);
  checkKeys(model, values, errors, (raw) => {
    const id = text && typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
    return id === existing.id ? undefined : `must equal the id in the URL (${existing.id}) or be left out`;
  });
  for (const field of model.declared) {
    const raw = ownValue(values, field.name);
    const absent = isAbsent(field, raw, text);
    if (!field.editable) {
      const stored = ownValue(existing, field.name) ?? null;
      if (stored !== null) data[field.name] = stored;
      if (absent) continue;
      const parsed = parseValue(field, raw, text);
      if (!parsed.ok) errors.push({ field: field.name, message: parsed.message });
      else if (parsed.value !== stored) errors.push({ field: field.name, message: 'is not editable; leave it out or send its current value' });
    } else if (!absent) accept(field, raw, text, data, errors);
    else if (field.required) errors.push({ field: field.name, message: 'is required' });
  }
  if (errors.length) throw invalid(errors);
  return data;
}

function invalid(errors: FieldError[]): SvcError {
  return validationError('invalid-member', 'Invalid member', errors);
}
