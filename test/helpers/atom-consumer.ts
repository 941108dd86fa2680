// An independent Atom consumer for tests: libxml2 (xmllint-wasm) validates against RFC 4287's schema and reads fields by XPath.
//
// Independent of the server's own XML code on purpose: a bug shared by our writer and our
// reader would pass a round trip, but not libxml2 and the RFC's grammar.

import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { XMLValidationResult } from 'xmllint-wasm';
import type { XmllintAnswer, XmllintJob } from './xmllint-worker.ts';

const SCHEMA = readFileSync(new URL('../fixtures/atom.rng', import.meta.url), 'utf8');
const NAMESPACES: Readonly<Record<string, string>> = {
  a: 'http://www.w3.org/2005/Atom',
  x: 'http://www.w3.org/1999/xhtml',
};
const SEPARATOR = '|~~|';
const WORKER = new URL('./xmllint-worker.ts', import.meta.url);

/** One worker for the whole test file, started at the first run; see xmllint-worker.ts. */
let worker: Worker | undefined;
const waiting = new Map<number, { resolve: (r: XMLValidationResult) => void; reject: (e: unknown) => void }>();
let lastId = 0;

function failAll(error: unknown): void {
  worker = undefined;
  for (const w of waiting.values()) w.reject(error);
  waiting.clear();
}

/**
 * Runs xmllint-wasm in a worker started without this process's execArgv (tap's --import hooks),
 * so that neither it nor the workers xmllint-wasm starts in turn load them (tap's NODE_OPTIONS
 * hooks are out of the environment already: test-process.ts). The worker keeps the process alive
 * only while a run is waiting for its answer.
 */
function xmllint(job: Omit<XmllintJob, 'id'>): Promise<XMLValidationResult> {
  if (!worker) {
    const w = new Worker(WORKER, { execArgv: ['--disable-warning=ExperimentalWarning'] });
    w.on('message', (answer: XmllintAnswer) => {
      const pending = waiting.get(answer.id);
      waiting.delete(answer.id);
      if (waiting.size === 0) w.unref();
      if ('error' in answer) pending?.reject(answer.error);
      else pending?.resolve(answer.result);
    });
    w.on('error', failAll);
    w.on('exit', (code) => failAll(new Error(`the xmllint worker exited (${code})`)));
    worker = w;
  }
  const id = ++lastId;
  const answer = new Promise<XMLValidationResult>((resolve, reject) => waiting.set(id, { resolve, reject }));
  worker.ref();
  worker.postMessage({ id, ...job } satisfies XmllintJob);
  return answer;
}

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
  const result = await xmllint({ xml, schema: SCHEMA, xpath });
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
