// The type metadata record of README "Models" (`GET /resources/types[/<name>]`).

import type { Model } from './types.ts';

export interface FieldMetadata {
  type: string;
  required: boolean;
  editable: boolean;
  primary_key: boolean;
  max_length?: number;
  default_value?: unknown;
  label?: string;
  description?: string;
}

export interface TypeMetadata {
  type: string;
  fields: Record<string, FieldMetadata>;
}

export function typeMetadata(model: Model): TypeMetadata {
  const fields: Record<string, FieldMetadata> = {};
  for (const f of model.fields.values()) {
    const meta: FieldMetadata = { type: f.type, required: f.required, editable: f.editable, primary_key: f.primaryKey };
    if (f.maxLength !== undefined) meta.max_length = f.maxLength;
    if (f.defaultValue !== undefined) meta.default_value = f.defaultValue;
    if (f.label !== undefined) meta.label = f.label;
    if (f.description !== undefined) meta.description = f.description;
    fields[f.name] = meta;
  }
  return { type: model.name, fields };
}
