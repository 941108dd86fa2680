// Reading untrusted XML bodies on fast-xml-parser: no DTD, no entities beyond XML's five, bounded.
//
// Request bodies are hostile input (README "Limits"). fast-xml-parser reads the document with entity
// processing off (no DTD is ever read: a DOCTYPE is refused before it runs) and a nesting bound;
// its validator checks tag matching, names and attribute syntax. What neither checks and matters here
// is done by narrow checks around them, never by a second parser: the characters, the declared
// encoding, markup declarations, size bounds on names and attributes (before the validator, whose
// cost grows with them), the five predefined entities and character references (decoded here, so
// nothing else can be expanded), one root element, and Namespaces in XML. The leniency left is
// listed in the README (Atom, limits).

import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** Bounds on a document; each is checked before the document's values are decoded. */
export interface XmlLimits {
  /** Deepest element nesting, in elements (the root is depth 1). Default 64: an Atom entry needs 7. */
  readonly maxDepth: number;
  /** Longest attribute value, in UTF-16 code units, before references are decoded. Default 8 KiB. */
  readonly maxAttributeLength: number;
  /** Most attributes (namespace declarations included) on one element. Default 64. */
  readonly maxAttributes: number;
  /** Longest element or attribute name, in UTF-16 code units. Default 256. */
  readonly maxNameLength: number;
  /**
   * Most elements in one document. Default 10,000: an entry needs about 15 plus two per field.
   * Each element costs the parser and its validator some microseconds; this bounds the CPU time
   * one body can take whatever the body size limit.
   */
  readonly maxElements: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxDepth: 64,
  maxAttributeLength: 8 * 1024,
  maxAttributes: 64,
  maxNameLength: 256,
  maxElements: 10_000,
};

export const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

export interface XmlElement {
  /** Namespace URI, '' when none. */
  readonly ns: string;
  readonly local: string;
  /** The name as written, e.g. `atom:entry`. */
  readonly qname: string;
  /** Attribute values (decoded), keyed by local name, or `{ns}local` when namespaced. Namespace declarations are left out. */
  readonly attrs: ReadonlyMap<string, string>;
  /** 1 for the root. */
  readonly depth: number;
}

export interface XmlHandler {
  open(el: XmlElement): void;
  close(el: XmlElement): void;
  /** Character data (text, CDATA, decoded references); may come in several pieces. */
  text(data: string): void;
}

/** Not well-formed, or over a limit. `line` and `column` are 1-based, when the problem has a place. */
export class XmlError extends Error {
  readonly line: number | undefined;
  readonly column: number | undefined;
  constructor(message: string, line?: number, column?: number) {
    super(message);
    this.name = 'XmlError';
    this.line = line;
    this.column = column;
  }
}

// XML 1.0 5th ed. §2.2 Char.
const NOT_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
// The validator checks every element and attribute name against XML's Name production, which
// allows colons anywhere. Namespaces in XML 1.0 allow one, between two NCNames: what is left to
// check is where the colon is, and that the local part starts with a character that can start a
// name (the Name characters that cannot, XML 1.0 §2.3 NameChar minus NameStartChar).
const NOT_NAME_START = /^[-.0-9\xB7\u0300-\u036F\u203F\u2040]/;
const XML_DECL = /^<\?xml[ \t\n\r]+version[ \t\n\r]*=[ \t\n\r]*(["'])(1\.[0-9]+)\1(?:[ \t\n\r]+encoding[ \t\n\r]*=[ \t\n\r]*(["'])([A-Za-z][A-Za-z0-9._-]{0,39})\3)?(?:[ \t\n\r]+standalone[ \t\n\r]*=[ \t\n\r]*(["'])(?:yes|no)\5)?[ \t\n\r]*\?>/;
const REFERENCE = /&(?:#([0-9]+)|#x([0-9a-fA-F]+)|([^\s&;<>"']{0,64}));/y;
const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function isChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/** The 1-based line and column of offset `at` in `s`. */
function place(s: string, at: number): [number, number] {
  let line = 1;
  let lineStart = 0;
  for (let i = s.indexOf('\n'); i !== -1 && i < at; i = s.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return [line, at - lineStart + 1];
}

function failAt(s: string, at: number, message: string): never {
  throw new XmlError(message, ...place(s, at));
}

function fail(message: string): never {
  throw new XmlError(message);
}

/** Reads `source` and reports it to `handler`; throws XmlError at the first problem. */
export function readXml(source: string, handler: XmlHandler, limits: XmlLimits = DEFAULT_XML_LIMITS): void {
  // The parser does not skip a byte order mark (its validator does).
  const s = source.startsWith('\uFEFF') ? source.slice(1) : source;
  precheck(s);
  const tree = parse(s, limits);
  // The parser drops text after a root that closes itself (`<a/>x`), and its validator passes it.
  // An unclosed tag there is the parser's error; what follows the last ">" now can only be text.
  const last = s.lastIndexOf('>');
  if (last !== -1 && s.slice(last + 1).trim() !== '') failAt(s, last + 1, 'text is not allowed after the root element');
  checkBounds(tree, limits);
  const verdict = XMLValidator.validate(s);
  if (verdict !== true) {
    // The validator's one message that does not say what to do.
    const message = verdict.err.msg === "char '&' is not expected." ? '"&" must start a reference: write &amp; for a literal ampersand' : verdict.err.msg.replace(/\.$/, '');
    throw new XmlError(message, verdict.err.line, verdict.err.col);
  }
  const root = rootOf(tree);
  element(root, nameOf(root)!, 1, undefined, handler);
}

/**
 * What fast-xml-parser passes over and matters here, checked on the text before it runs: characters
 * XML forbids, an encoding other than UTF-8 (the body was decoded as UTF-8), and any markup
 * declaration (`<!DOCTYPE`, `<!ENTITY`, …): with no DTD, no entity can be declared, let alone
 * expanded (billion laughs, external entities). Comments and CDATA sections are skipped whole, so
 * their text may hold anything; a comment must not hold "--" (XML 1.0 §2.5).
 */
function precheck(s: string): void {
  const bad = NOT_CHAR.exec(s);
  if (bad) failAt(s, bad.index, `character U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML`);
  if (s.trim() === '') fail('the document has no root element');
  if (s.startsWith('<?xml') && /[ \t\n\r?]/.test(s[5] ?? '')) {
    const m = XML_DECL.exec(s);
    if (!m) failAt(s, 0, 'malformed XML declaration: write <?xml version="1.0" encoding="UTF-8"?>');
    const encoding = m[4];
    if (encoding !== undefined && !/^(utf-8|us-ascii)$/i.test(encoding)) failAt(s, 0, `encoding "${encoding}" is not supported: send UTF-8`);
  }
  for (let at = s.indexOf('<!'); at !== -1; ) {
    let end: number;
    if (s.startsWith('<!--', at)) {
      end = s.indexOf('-->', at + 4);
      if (end === -1) failAt(s, at, 'unterminated comment');
      const dashes = s.indexOf('--', at + 4);
      // `<!---->` is an empty comment; `<!-- a --->` ends in "-".
      if (dashes < end || (end > at + 4 && s[end - 1] === '-')) failAt(s, at, '"--" is not allowed inside a comment');
    } else if (s.startsWith('<![CDATA[', at)) {
      end = s.indexOf(']]>', at + 9);
      if (end === -1) failAt(s, at, 'unterminated CDATA section');
    } else if (s.startsWith('<!DOCTYPE', at)) {
      failAt(s, at, 'a DOCTYPE is not allowed: remove it (entities and DTDs are never processed)');
    } else {
      failAt(s, at, 'markup declarations (<!DOCTYPE, <!ENTITY, …) are not allowed');
    }
    at = s.indexOf('<!', end + 3);
  }
  if (UNICODE_ONLY_SPACE.test(s)) checkNameEnds(s);
}

/** White space to JavaScript (`\s`) that is not XML's S (space, tab, CR, LF); the others are not XML characters. */
const UNICODE_ONLY_SPACE = /[^\S\t\n\r ]/u;

/**
 * The character after each start or end tag's name, when the document holds a space that is not
 * XML's: fast-xml-parser and its validator end a name at any JavaScript white space and pass
 * over it, so `<dd\u00A0>` would be read as `<dd>` and `</dd\uFEFF>` (U+FEFF is a name character)
 * would close `<dd>`. XML 1.0 §3.1 allows only S there. Comments, CDATA sections and processing
 * instructions are skipped: they may hold anything.
 */
function checkNameEnds(s: string): void {
  for (let at = s.indexOf('<'); at !== -1; at = s.indexOf('<', at + 1)) {
    const skip = s.startsWith('<!--', at) ? '-->' : s.startsWith('<![CDATA[', at) ? ']]>' : s.startsWith('<?', at) ? '?>' : undefined;
    if (skip !== undefined) {
      const end = s.indexOf(skip, at + 2);
      if (end === -1) return; // unterminated: the parser says so
      at = end;
      continue;
    }
    let i = s[at + 1] === '/' ? at + 2 : at + 1;
    // Up to the next "<" at most: each character is looked at once, however many tags are open.
    while (i < s.length && !/[\s/<>]/u.test(s[i]!)) i++;
    if (i < s.length && UNICODE_ONLY_SPACE.test(s[i]!)) {
      failAt(s, i, `character U+${s.codePointAt(i)!.toString(16).toUpperCase().padStart(4, '0')} cannot end a tag's name: only a space, tab, CR or LF can`);
    }
  }
}

/** fast-xml-parser's `preserveOrder` output: `{ name: children, ':@'?: attributes }`, `{ '#text': … }`, `{ '#cdata': [{ '#text': … }] }`. */
type Node = Readonly<Record<string, unknown>>;
const ATTRS = ':@';
const TEXT = '#text';
const CDATA = '#cdata';

const parsers = new Map<string, XMLParser>();

/** Elements the parser has opened in the document being read (parsing is synchronous: one at a time). */
let elements = 0;

class TooManyElements extends Error {}

function parserFor(limits: XmlLimits): XMLParser {
  const key = `${limits.maxDepth}/${limits.maxElements}`;
  let parser = parsers.get(key);
  if (!parser) {
    parser = new XMLParser({
      preserveOrder: true,
      ignoreAttributes: false,
      attributeNamePrefix: '',
      // Values stay the text that was sent: no trimming, no number or boolean guessing.
      parseTagValue: false,
      parseAttributeValue: false,
      trimValues: false,
      // No entity is ever expanded by the parser; `decode` below reads the five predefined ones.
      processEntities: false,
      htmlEntities: false,
      cdataPropName: CDATA,
      ignoreDeclaration: true,
      ignorePiTags: true,
      // It counts the elements above the one it opens: the root opens at 0.
      maxNestedTags: limits.maxDepth - 1,
      // Called once per element as the parser adds it: the element count is checked as it grows.
      updateTag: () => {
        if (++elements > limits.maxElements) throw new TooManyElements();
        return true;
      },
      // Names are kept as sent (a name like `toString` is plain data to this reader).
      onDangerousProperty: (name) => name,
      // No path strings for callbacks this reader does not use (building them is a fifth of the parse).
      jPath: false,
    });
    parsers.set(key, parser);
  }
  return parser;
}

function parse(s: string, limits: XmlLimits): Node[] {
  elements = 0;
  try {
    return parserFor(limits).parse(s) as Node[];
  } catch (e) {
    if (e instanceof TooManyElements) fail(`the document has more than ${limits.maxElements} elements`);
    const message = String((e as Error)?.message ?? e);
    if (message === 'Maximum nested tags exceeded') fail(`elements are nested deeper than ${limits.maxDepth} levels`);
    const open = /^readTagExp returned undefined at position (\d+)/.exec(message);
    if (open) failAt(s, Number(open[1]), 'a tag is not closed: a ">" or the closing quote of an attribute value is missing');
    const reserved = /^\[SECURITY\] Invalid name: "([^"]{0,64})"/.exec(message);
    if (reserved) fail(`the name "${reserved[1]}" is not accepted: __proto__, constructor and prototype cannot name an element or attribute`);
    // The parser's other messages ("Comment is not closed.", …) carry no document text.
    fail(message.replace(/\.$/, ''));
  }
}

/** The element name of `node`, or undefined for text and CDATA. */
function nameOf(node: Node): string | undefined {
  for (const key in node) if (key !== ATTRS) return key === TEXT || key === CDATA ? undefined : key;
  return undefined;
}

function attrsOf(node: Node): Readonly<Record<string, unknown>> | undefined {
  const a = node[ATTRS];
  return typeof a === 'object' && a !== null ? (a as Record<string, unknown>) : undefined;
}

function childrenOf(node: Node, name: string): Node[] {
  const c = node[name];
  return Array.isArray(c) ? (c as Node[]) : [];
}

/**
 * Size bounds on names and attributes, checked on the tree before the validator reads the text
 * (its cost grows with each tag's length). Depth is already bounded by the parser.
 */
function checkBounds(nodes: readonly Node[], limits: XmlLimits): void {
  for (const node of nodes) {
    const name = nameOf(node);
    if (name === undefined) continue;
    if (name.length > limits.maxNameLength) fail(`an element name is longer than ${limits.maxNameLength} characters`);
    const attrs = attrsOf(node);
    if (attrs) {
      const names = Object.keys(attrs);
      if (names.length > limits.maxAttributes) fail(`<${shown(name)}> has more than ${limits.maxAttributes} attributes`);
      for (const a of names) {
        if (a.length > limits.maxNameLength) fail(`an attribute name is longer than ${limits.maxNameLength} characters`);
        const v = attrs[a];
        if (typeof v === 'string' && v.length > limits.maxAttributeLength) fail(`attribute "${shown(a)}" is longer than ${limits.maxAttributeLength} characters`);
      }
    }
    checkBounds(childrenOf(node, name), limits);
  }
}

function shown(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}

/**
 * The one root element. The validator passes text after a root that closes itself (`<a/>x`) and
 * a second root after one (`<a/><b/>`).
 */
function rootOf(tree: readonly Node[]): Node {
  let root: Node | undefined;
  for (const node of tree) {
    const name = nameOf(node);
    if (name !== undefined) {
      if (root) fail('the document has more than one root element');
      root = node;
    } else if (node[TEXT] !== undefined && String(node[TEXT]).trim() !== '') {
      fail(`text is not allowed ${root ? 'after' : 'before'} the root element`);
    } else if (node[CDATA] !== undefined) {
      fail(`a CDATA section is not allowed ${root ? 'after' : 'before'} the root element`);
    }
  }
  if (!root) fail('the document has no root element');
  return root;
}

/** Namespace bindings in scope: an element's own declarations, then its ancestors'. */
interface Scope {
  readonly bindings: ReadonlyMap<string, string>;
  readonly parent: Scope | undefined;
}

/** Reports an element and its content. Recursion is bounded: the parser refused anything deeper than maxDepth. */
function element(node: Node, qname: string, depth: number, parent: Scope | undefined, h: XmlHandler): void {
  const raw = attrsOf(node) ?? {};
  let bindings: Map<string, string> | undefined;
  const values = new Map<string, string>();
  for (const [name, v] of Object.entries(raw)) {
    // Attribute-value normalisation (XML 1.0 §3.3.3): literal whitespace becomes a space.
    const text = String(v);
    if (text.includes('<')) fail(`"<" is not allowed in an attribute value: write &lt; (attribute "${shown(name)}" of <${shown(qname)}>)`);
    const value = decode(text.replace(/[\t\n]/g, ' '));
    values.set(name, value);
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
    const prefix = name === 'xmlns' ? '' : split(name)[1];
    if (prefix === 'xmlns' || value === XMLNS_NS) fail('the xmlns prefix and namespace cannot be declared');
    if ((prefix === 'xml') !== (value === XML_NS)) fail('the xml prefix is bound only to its own namespace');
    if (prefix !== '' && value === '') fail(`the prefix "${shown(prefix)}" cannot be bound to an empty namespace`);
    (bindings ??= new Map()).set(prefix, value);
  }
  const scope: Scope | undefined = bindings ? { bindings, parent } : parent;
  const [prefix, local] = split(qname);
  const attrs = new Map<string, string>();
  for (const [name, value] of values) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
    const [aprefix, alocal] = split(name);
    // Unprefixed attributes are in no namespace, whatever the default namespace is.
    const key = aprefix === '' ? alocal : `{${lookup(aprefix, scope, name)}}${alocal}`;
    if (attrs.has(key)) fail(`attribute "${shown(name)}" is repeated (same namespace and name)`);
    attrs.set(key, value);
  }
  const el: XmlElement = { ns: lookup(prefix, scope, qname), local, qname, attrs, depth };
  h.open(el);
  for (const child of childrenOf(node, qname)) {
    const name = nameOf(child);
    if (name !== undefined) element(child, name, depth + 1, scope, h);
    else if (child[TEXT] !== undefined) {
      const text = String(child[TEXT]);
      if (text.includes(']]>')) fail('"]]>" is not allowed in text: write ]]&gt;');
      h.text(decode(text));
    } else {
      const cdata = child[CDATA];
      if (Array.isArray(cdata)) for (const part of cdata as Node[]) h.text(String(part[TEXT] ?? ''));
    }
  }
  h.close(el);
}

/** Prefix ('' when none) and local part of a name the validator has already checked as an XML Name. */
function split(name: string): [string, string] {
  const colon = name.indexOf(':');
  if (colon === -1) return ['', name];
  const prefix = name.slice(0, colon);
  const local = name.slice(colon + 1);
  if (prefix === '' || local === '' || local.includes(':') || NOT_NAME_START.test(local)) fail(`"${shown(name)}" is not a valid qualified name`);
  return [prefix, local];
}

/** The namespace of `prefix` in `scope`. */
function lookup(prefix: string, scope: Scope | undefined, name: string): string {
  if (prefix === 'xml') return XML_NS;
  for (let s = scope; s; s = s.parent) {
    const ns = s.bindings.get(prefix);
    if (ns !== undefined) return ns;
  }
  if (prefix === '') return '';
  return fail(`the prefix "${shown(prefix)}" of "${shown(name)}" is not declared`);
}

/** Decodes the references in `raw`: the five predefined entities and character references, nothing else. */
function decode(raw: string): string {
  if (!raw.includes('&')) return raw;
  let out = '';
  let last = 0;
  for (let amp = raw.indexOf('&'); amp !== -1; amp = raw.indexOf('&', last)) {
    out += raw.slice(last, amp);
    REFERENCE.lastIndex = amp;
    const m = REFERENCE.exec(raw);
    if (!m) fail('"&" must start a reference: write &amp; for a literal ampersand');
    const [whole, dec, hex, name] = m;
    if (name !== undefined) {
      if (name === '') fail('"&" must start a reference: write &amp; for a literal ampersand');
      const ch = Object.hasOwn(PREDEFINED, name) ? PREDEFINED[name] : undefined;
      if (ch === undefined) fail(`the entity &${name}; is not allowed: use one of &lt; &gt; &amp; &quot; &apos; or a numeric character reference`);
      out += ch;
    } else {
      // Any number of digits (XML 1.0 §4.1): leading zeros add nothing; past 8 others, no character.
      const digits = (dec ?? hex)!.replace(/^0+(?=.)/, '');
      const cp = digits.length > 8 ? -1 : parseInt(digits, dec !== undefined ? 10 : 16);
      if (!isChar(cp)) fail(`${whole} does not refer to a character allowed in XML`);
      out += String.fromCodePoint(cp);
    }
    last = amp + whole.length;
  }
  return out + raw.slice(last);
}
