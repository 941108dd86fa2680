// Atom customisation (README "Representations"): the calculated_fields templates of a model, checked and precompiled.

import type { Member, Model } from '../model/types.ts';
import { ownValue, valueText } from '../model/values.ts';
import { escapeXml } from './xml-escape.ts';

/** Keys a model may set, with what each customises. Any other key is a model error. */
export const MEMBER_TEMPLATE_KEYS = ['atom_title', 'atom_author_name', 'atom_summary'] as const;
export const TYPE_TEMPLATE_KEYS = ['atom_feed_title'] as const;

type MemberKey = (typeof MEMBER_TEMPLATE_KEYS)[number];

/**
 * `$member.<field>` (the name runs while it is an identifier) or `${member.<field>}` (any
 * name up to `}`, so a field may be followed directly by letters: `${member.n}th`).
 */
const REFERENCE = /\$\{member\.([^}]*)\}|\$member\.([A-Za-z0-9_]*)/g;

/** A template: literal text (already XML-escaped) alternating with field names. */
type Part = { text: string } | { field: string };

/** Renders a template for one member into escaped XML text. */
export type MemberTemplate = (member: Member) => string;

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const m of template.matchAll(REFERENCE)) {
    if (m.index > last) parts.push({ text: escapeXml(template.slice(last, m.index)) });
    parts.push({ field: m[1] ?? m[2]! });
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push({ text: escapeXml(template.slice(last)) });
  return parts;
}

function compile(template: string): MemberTemplate {
  const parts = parse(template);
  // Most templates are `Literal $member.x` or a bare literal: skip the loop for those.
  if (parts.length === 0) return () => '';
  if (parts.length === 1) {
    const p = parts[0]!;
    if ('text' in p) return () => p.text;
    return (m) => fieldText(m, p.field);
  }
  return (m) => {
    let out = '';
    for (const p of parts) out += 'text' in p ? p.text : fieldText(m, p.field);
    return out;
  };
}

/** The escaped canonical text of a field; an absent (or unknown) field is the empty string. */
function fieldText(m: Member, field: string): string {
  const v = ownValue(m, field);
  return v === undefined || v === null ? '' : escapeXml(valueText(v));
}

/** A model's templates, compiled; absent keys fall back to the README "Representations" defaults. */
export interface AtomTemplates {
  /** feed/title, escaped. */
  readonly feedTitle: string;
  readonly title: MemberTemplate;
  readonly authorName: MemberTemplate;
  /** entry/summary, only when the model sets `atom_summary`. */
  readonly summary: MemberTemplate | undefined;
}

// Compiled once per loaded model: a changed model file is a new Model object (hot reload).
const cache = new WeakMap<Model, AtomTemplates>();

export function templatesOf(model: Model): AtomTemplates {
  let t = cache.get(model);
  if (!t) {
    t = build(model);
    cache.set(model, t);
  }
  return t;
}

/**
 * A customised title or author name, falling back to the default for a member whose template
 * renders empty (say it names only absent fields): every entry keeps a readable title and author.
 */
function orDefault(template: string | undefined, fallback: MemberTemplate): MemberTemplate {
  if (template === undefined) return fallback;
  const render = compile(template);
  return (m) => {
    const text = render(m);
    return text.trim() ? text : fallback(m);
  };
}

function build(model: Model): AtomTemplates {
  const name = model.name;
  const custom = (key: MemberKey): string | undefined => {
    const v = Object.hasOwn(model.calculatedFields, key) ? model.calculatedFields[key] : undefined;
    return typeof v === 'string' ? v : undefined;
  };
  const title = custom('atom_title');
  const author = custom('atom_author_name');
  const summary = custom('atom_summary');
  const feedTitle = Object.hasOwn(model.calculatedTypeFields, 'atom_feed_title') ? model.calculatedTypeFields.atom_feed_title : undefined;
  const escName = escapeXml(name);
  return {
    // The feed title is literal text: there is no member to take fields from.
    feedTitle: typeof feedTitle === 'string' ? escapeXml(feedTitle) : `Title of Type ${escName} Feed`,
    title: orDefault(title, (m) => `Title of ${escName} ${m.id}`),
    authorName: orDefault(author, (m) => `Author of ${escName} ${m.id}`),
    summary: summary !== undefined ? compile(summary) : undefined,
  };
}

/**
 * What is wrong with a model's Atom customisation, one message per problem: unknown keys,
 * values that are not strings, and templates that reference fields the model does not have.
 * The model loader rejects a model with any (README "Models": reported when the model loads).
 */
export function templateErrors(model: Model): string[] {
  const errors: string[] = [];
  const check = (container: string, values: Readonly<Record<string, unknown>>, keys: readonly string[], members: boolean) => {
    for (const [key, value] of Object.entries(values)) {
      const where = `${container}.${key}`;
      if (!keys.includes(key)) {
        errors.push(`${where} is not a known key (known: ${keys.join(', ')})`);
        continue;
      }
      if (typeof value !== 'string') {
        errors.push(`${where} must be a string`);
        continue;
      }
      for (const part of parse(value)) {
        if (!('field' in part)) continue;
        if (!members) {
          errors.push(`${where} references member field "${part.field}", but a feed title has no member: use literal text`);
        } else if (part.field === '') {
          errors.push(`${where} has a reference without a field name: write $member.<field> or \${member.<field>}`);
        } else if (!model.fields.has(part.field)) {
          errors.push(`${where} references unknown field "${part.field}"`);
        }
      }
    }
  };
  check('calculated_fields', model.calculatedFields, MEMBER_TEMPLATE_KEYS, true);
  check('calculated_type_fields', model.calculatedTypeFields, TYPE_TEMPLATE_KEYS, false);
  return errors;
}
