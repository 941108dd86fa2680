// An independent Atom consumer for tests: libxml2 (xmllint-wasm) validates against RFC 4287's schema and reads fields by XPath.
//
// Independent of the server's own XML code on purpose: a bug shared by our writer and our
// reader would pass a round trip, but not libxml2 and the RFC's grammar.

import { readFileSync } from 'node:fs';
import { validateXML } from 'xmllint-wasm';

const SCHEMA = readFileSync(new URL('../fixtures/atom.rng', import.meta.url), 'utf8');
const NAMESPACES: Readonly<Record<string, string>> = {
  a: 'http://www.w3.org/2005/Atom',
  x: 'http://www.w3.org/1999/xhtml',
};
const SEPARATOR = '|~~|';

/**
 * XPath 1.0 with `a:` (Atom) and `x:` (XHTML) prefixes. xmllint cannot register namespace
 * prefixes, so `a:title` becomes `*[local-name()='title' and namespace-uri()='…']`.
 */
function expand(xpath: string): string {
  return xpath.replace(/\b([ax]):([A-Za-z_][\w-]*)/g, (_, p: string, local: string) => `*[local-name()='${local}' and namespace-uri()='${NAMESPACES[p]}']`);
}

/** RFC 4287's Schematron rules, which the RELAX NG grammar states but libxml2 does not run. */
const SCHEMATRON: Readonly<Record<string, string>> = {
  'An atom:feed must have an atom:author unless all of its atom:entry children have an atom:author.':
    'not(/a:feed) or /a:feed/a:author or not(/a:feed/a:entry[not(a:author)])',
  'An atom:entry must have at least one atom:link element with a rel attribute of alternate or an atom:content.':
    "not(//a:entry[not(a:link[@rel='alternate'] or a:link[not(@rel)] or a:content)])",
  'An atom:entry must have an atom:author if its feed does not.': 'not(//a:entry[not(a:author or ../a:author or a:source/a:author)])',
};

export interface Consumed {
  /** Schema and Schematron violations; empty for a valid Atom document. */
  readonly errors: string[];
  /** The string value of each query (XPath `string(…)`), by the query's key. */
  readonly values: Record<string, string>;
}

/**
 * Validates an Atom document with libxml2 against the RFC 4287 grammar and evaluates `queries`
 * (XPath 1.0 with `a:` and `x:` prefixes) on it, in one xmllint run.
 */
export async function consumeAtom(xml: string, queries: Record<string, string> = {}): Promise<Consumed> {
  const rules = Object.entries(SCHEMATRON);
  const all = [...rules.map(([, test]) => `boolean(${test})`), ...Object.values(queries)];
  const xpath = `concat(${all.map((q) => `string(${expand(q)})`).join(`, '${SEPARATOR}', `)}, '')`;
  const result = await validateXML({
    xml: [{ fileName: 'doc.xml', contents: xml }],
    schema: [{ fileName: 'atom.rng', contents: SCHEMA }],
    extension: 'relaxng',
    // Evaluated in the same run; its result is what xmllint prints on stdout.
    modifyArguments: (args) => [...args.slice(0, -1), '--xpath', xpath, args.at(-1)!],
  });
  const errors = result.errors.map((e) => e.message);
  const out = result.normalized.replace(/\n$/, '').split(SEPARATOR);
  if (out.length !== all.length) {
    // Not well-formed: libxml2 evaluated nothing, and its errors say why.
    if (errors.length > 0) return { errors, values: {} };
    throw new Error(`xmllint answered ${out.length} values for ${all.length} queries: ${result.rawOutput}`);
  }
  rules.forEach(([message], i) => {
    if (out[i] !== 'true') errors.push(`Schematron: ${message}`);
  });
  const values: Record<string, string> = {};
  Object.keys(queries).forEach((key, i) => {
    values[key] = out[rules.length + i]!;
  });
  return { errors, values };
}
