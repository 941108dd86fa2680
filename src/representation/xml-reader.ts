// A strict, non-validating XML 1.0 + Namespaces reader for untrusted bodies: no DTD, no entities.
//
// Why not a general-purpose parser: request bodies are hostile input (README "Limits"), and what a
// body may be here is narrow. This reader rejects a DOCTYPE outright (so no entity can ever be
// declared, let alone expanded: no billion laughs, no external entities), accepts only the five
// predefined entities and numeric character references, bounds nesting depth and attribute
// sizes, checks well-formedness (XML 1.0 5th ed. + Namespaces 1.0), never recurses and never
// builds a tree: it calls a handler for each element, end tag and run of text.

/** Bounds on a document; each is checked as soon as the reader reaches it. */
export interface XmlLimits {
  /** Deepest element nesting, in elements (the root is depth 1). Default 64: an Atom entry needs 7. */
  readonly maxDepth: number;
  /** Longest attribute value, in UTF-16 code units, before references are decoded. Default 8 KiB. */
  readonly maxAttributeLength: number;
  /** Most attributes (namespace declarations included) on one element. Default 64. */
  readonly maxAttributes: number;
  /** Longest element or attribute name, in UTF-16 code units. Default 256. */
  readonly maxNameLength: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxDepth: 64,
  maxAttributeLength: 8 * 1024,
  maxAttributes: 64,
  maxNameLength: 256,
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

/** Not well-formed, or over a limit. `line` and `column` are 1-based. */
export class XmlError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(message: string, line: number, column: number) {
    super(message);
    this.name = 'XmlError';
    this.line = line;
    this.column = column;
  }
}

// XML 1.0 5th ed. §2.2 Char and §2.3 NameStartChar / NameChar (colon handled by the namespace check).
const NOT_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const NAME_START = 'A-Z_a-z\\xC0-\\xD6\\xD8-\\xF6\\xF8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_CHAR = `${NAME_START}\\-.0-9\\xB7\\u0300-\\u036F\\u203F\\u2040`;
const NAME = new RegExp(`[${NAME_START}:][${NAME_CHAR}:]*`, 'uy');
const NCNAME = new RegExp(`^[${NAME_START}][${NAME_CHAR}]*$`, 'u');
const SPACE = /[ \t\n\r]*/y;
const XML_DECL = /<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(["'])(1\.[0-9]+)\1(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(["'])([A-Za-z][A-Za-z0-9._-]{0,39})\3)?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(["'])(?:yes|no)\5)?[ \t\n]*\?>/y;
const REFERENCE = /&(?:#([0-9]+)|#x([0-9a-fA-F]+)|([^\s&;<>"']{0,64}));/y;
const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function isChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/** Reads `source` and reports it to `handler`; throws XmlError at the first problem. */
export function readXml(source: string, handler: XmlHandler, limits: XmlLimits = DEFAULT_XML_LIMITS): void {
  new Reader(source, handler, limits).read();
}

interface Open {
  readonly el: XmlElement;
  /** Prefix bindings this element declares (undefined: none), searched innermost first. */
  readonly bindings: Map<string, string> | undefined;
}

class Reader {
  readonly #s: string;
  readonly #h: XmlHandler;
  readonly #limits: XmlLimits;
  #pos = 0;
  readonly #stack: Open[] = [];

  constructor(source: string, handler: XmlHandler, limits: XmlLimits) {
    // End-of-line handling (XML 1.0 §2.11): CR LF and lone CR are read as LF.
    this.#s = source.includes('\r') ? source.replace(/\r\n?/g, '\n') : source;
    this.#h = handler;
    this.#limits = limits;
  }

  #fail(message: string, at = this.#pos): never {
    let line = 1;
    let lineStart = 0;
    for (let i = this.#s.indexOf('\n'); i !== -1 && i < at; i = this.#s.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    throw new XmlError(message, line, at - lineStart + 1);
  }

  read(): void {
    const s = this.#s;
    const bad = NOT_CHAR.exec(s);
    if (bad) this.#fail(`character U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML`, bad.index);
    if (s.startsWith('\uFEFF')) this.#pos = 1;
    this.#declaration();
    this.#misc('before');
    if (this.#pos >= s.length) this.#fail('the document has no root element');
    this.#element();
    this.#misc('after');
  }

  #declaration(): void {
    if (!this.#s.startsWith('<?xml', this.#pos) || !/[ \t\n?]/.test(this.#s[this.#pos + 5] ?? '')) return;
    XML_DECL.lastIndex = this.#pos;
    const m = XML_DECL.exec(this.#s);
    if (!m) this.#fail('malformed XML declaration: write <?xml version="1.0" encoding="UTF-8"?>');
    const encoding = m[4];
    if (encoding !== undefined && !/^(utf-8|us-ascii)$/i.test(encoding)) {
      this.#fail(`encoding "${encoding}" is not supported: send UTF-8`);
    }
    this.#pos = XML_DECL.lastIndex;
  }

  /** Whitespace, comments and PIs outside the root element; a DOCTYPE is refused here. */
  #misc(where: 'before' | 'after'): void {
    const s = this.#s;
    for (;;) {
      this.#skipSpace();
      if (s.startsWith('<!--', this.#pos)) this.#comment();
      else if (s.startsWith('<?', this.#pos)) this.#pi();
      else if (s.startsWith('<!DOCTYPE', this.#pos)) {
        this.#fail('a DOCTYPE is not allowed: remove it (entities and DTDs are never processed)');
      } else if (s.startsWith('<', this.#pos)) {
        if (where === 'before') return;
        this.#fail('the document has more than one root element');
      } else if (this.#pos < s.length) this.#fail(`text is not allowed ${where} the root element`);
      else return;
    }
  }

  #skipSpace(): boolean {
    SPACE.lastIndex = this.#pos;
    SPACE.test(this.#s);
    const moved = SPACE.lastIndex > this.#pos;
    this.#pos = SPACE.lastIndex;
    return moved;
  }

  #name(what: string): string {
    NAME.lastIndex = this.#pos;
    const m = NAME.exec(this.#s);
    if (!m) this.#fail(`expected ${what}`);
    if (m[0].length > this.#limits.maxNameLength) this.#fail(`${what} is longer than ${this.#limits.maxNameLength} characters`);
    this.#pos = NAME.lastIndex;
    return m[0];
  }

  #comment(): void {
    const start = this.#pos + 4;
    const end = this.#s.indexOf('-->', start);
    if (end === -1) this.#fail('unterminated comment');
    const body = this.#s.slice(start, end);
    // XML 1.0 §2.5: "--" must not occur in a comment, nor may it end with "-".
    if (body.includes('--') || body.endsWith('-')) this.#fail('"--" is not allowed inside a comment');
    this.#pos = end + 3;
  }

  #pi(): void {
    this.#pos += 2;
    const target = this.#name('a processing instruction target');
    if (target.toLowerCase() === 'xml') this.#fail('the XML declaration is only allowed at the very start of the document');
    const end = this.#s.indexOf('?>', this.#pos);
    if (end === -1) this.#fail('unterminated processing instruction');
    if (end > this.#pos && !this.#skipSpace()) this.#fail('expected whitespace after the processing instruction target');
    this.#pos = end + 2;
  }

  /** The root element and everything in it, iteratively: depth never costs stack. */
  #element(): void {
    const s = this.#s;
    const stack = this.#stack;
    this.#startTag();
    while (stack.length > 0) {
      const lt = s.indexOf('<', this.#pos);
      if (lt === -1) this.#fail(`element <${stack.at(-1)!.el.qname}> is not closed`, s.length);
      if (lt > this.#pos) this.#text(s.slice(this.#pos, lt), this.#pos);
      this.#pos = lt;
      if (s.startsWith('</', lt)) this.#endTag();
      else if (s.startsWith('<!--', lt)) this.#comment();
      else if (s.startsWith('<![CDATA[', lt)) this.#cdata();
      else if (s.startsWith('<?', lt)) this.#pi();
      else if (s.startsWith('<!', lt)) this.#fail('markup declarations (<!DOCTYPE, <!ENTITY, …) are not allowed');
      else this.#startTag();
    }
  }

  #text(raw: string, at: number): void {
    const gt = raw.indexOf(']]>');
    if (gt !== -1) this.#fail('"]]>" is not allowed in text: write ]]&gt;', at + gt);
    this.#h.text(raw.includes('&') ? this.#decode(raw, at) : raw);
  }

  #cdata(): void {
    const start = this.#pos + 9;
    const end = this.#s.indexOf(']]>', start);
    if (end === -1) this.#fail('unterminated CDATA section');
    if (end > start) this.#h.text(this.#s.slice(start, end));
    this.#pos = end + 3;
  }

  /** Decodes the references in `raw` (which starts at offset `at`): never an entity beyond the predefined five. */
  #decode(raw: string, at: number): string {
    let out = '';
    let last = 0;
    for (let amp = raw.indexOf('&'); amp !== -1; amp = raw.indexOf('&', last)) {
      out += raw.slice(last, amp);
      REFERENCE.lastIndex = amp;
      const m = REFERENCE.exec(raw);
      if (!m) this.#fail('"&" must start a reference: write &amp; for a literal ampersand', at + amp);
      const [whole, dec, hex, name] = m;
      if (name !== undefined) {
        NAME.lastIndex = 0;
        if (!NAME.test(name) || NAME.lastIndex !== name.length) {
          this.#fail('"&" must start a reference: write &amp; for a literal ampersand', at + amp);
        }
        const ch = Object.hasOwn(PREDEFINED, name) ? PREDEFINED[name] : undefined;
        if (ch === undefined) {
          this.#fail(`the entity &${name}; is not allowed: use one of &lt; &gt; &amp; &quot; &apos; or a numeric character reference`, at + amp);
        }
        out += ch;
      } else {
        const digits = (dec ?? hex)!;
        const cp = digits.length > 8 ? -1 : parseInt(digits, dec !== undefined ? 10 : 16);
        if (!isChar(cp)) this.#fail(`${whole} does not refer to a character allowed in XML`, at + amp);
        out += String.fromCodePoint(cp);
      }
      last = amp + whole.length;
    }
    return out + raw.slice(last);
  }

  #startTag(): void {
    const s = this.#s;
    const tagAt = this.#pos;
    this.#pos++; // '<'
    const qname = this.#name('an element name');
    const raw: [string, string, number][] = [];
    const seen = new Set<string>();
    for (;;) {
      const spaced = this.#skipSpace();
      if (s.startsWith('/>', this.#pos) || s.startsWith('>', this.#pos)) break;
      if (this.#pos >= s.length) this.#fail(`the start tag <${qname}> is not closed`, tagAt);
      if (!spaced) this.#fail(`expected whitespace before the next attribute of <${qname}>`);
      const nameAt = this.#pos;
      const name = this.#name('an attribute name');
      if (seen.has(name)) this.#fail(`attribute "${name}" is repeated`, nameAt);
      seen.add(name);
      if (raw.length >= this.#limits.maxAttributes) this.#fail(`<${qname}> has more than ${this.#limits.maxAttributes} attributes`, nameAt);
      this.#skipSpace();
      if (s[this.#pos] !== '=') this.#fail(`attribute "${name}" has no value: write ${name}="…"`);
      this.#pos++;
      this.#skipSpace();
      const quote = s[this.#pos];
      if (quote !== '"' && quote !== "'") this.#fail(`the value of attribute "${name}" must be quoted`);
      const valueAt = this.#pos + 1;
      const end = s.indexOf(quote, valueAt);
      if (end === -1) this.#fail(`the value of attribute "${name}" is not closed`);
      // Checked before the value is copied or decoded: a huge attribute costs one indexOf.
      if (end - valueAt > this.#limits.maxAttributeLength) {
        this.#fail(`attribute "${name}" is longer than ${this.#limits.maxAttributeLength} characters`, nameAt);
      }
      this.#pos = end + 1;
      const lt = s.indexOf('<', valueAt);
      if (lt !== -1 && lt < end) this.#fail(`"<" is not allowed in an attribute value: write &lt;`, lt);
      // Attribute-value normalisation (XML 1.0 §3.3.3): literal whitespace becomes a space.
      let value = s.slice(valueAt, end).replace(/[\t\n]/g, ' ');
      if (value.includes('&')) value = this.#decode(value, valueAt);
      raw.push([name, value, nameAt]);
    }
    const selfClosing = s[this.#pos] === '/';
    this.#pos += selfClosing ? 2 : 1;

    const depth = this.#stack.length + 1;
    if (depth > this.#limits.maxDepth) this.#fail(`elements are nested deeper than ${this.#limits.maxDepth} levels`, tagAt);
    const open = this.#resolve(qname, raw, depth, tagAt);
    this.#stack.push(open);
    this.#h.open(open.el);
    if (selfClosing) {
      this.#stack.pop();
      this.#h.close(open.el);
    }
  }

  #endTag(): void {
    const at = this.#pos;
    this.#pos += 2;
    const qname = this.#name('an element name');
    this.#skipSpace();
    if (this.#s[this.#pos] !== '>') this.#fail(`malformed end tag </${qname}>`);
    this.#pos++;
    const open = this.#stack.pop()!;
    if (open.el.qname !== qname) this.#fail(`</${qname}> does not close <${open.el.qname}>`, at);
    this.#h.close(open.el);
  }

  /** Applies Namespaces in XML 1.0: declarations first, then the element's and attributes' names. */
  #resolve(qname: string, raw: [string, string, number][], depth: number, at: number): Open {
    let bindings: Map<string, string> | undefined;
    for (const [name, value, nameAt] of raw) {
      if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
      const prefix = name === 'xmlns' ? '' : name.slice(6);
      if (prefix !== '' && !NCNAME.test(prefix)) this.#fail(`"${name}" is not a valid namespace declaration`, nameAt);
      if (prefix === 'xmlns' || value === XMLNS_NS) this.#fail('the xmlns prefix and namespace cannot be declared', nameAt);
      if ((prefix === 'xml') !== (value === XML_NS)) this.#fail('the xml prefix is bound only to its own namespace', nameAt);
      if (prefix !== '' && value === '') this.#fail(`the prefix "${prefix}" cannot be bound to an empty namespace`, nameAt);
      (bindings ??= new Map()).set(prefix, value);
    }
    const [prefix, local] = this.#split(qname, at);
    const ns = this.#lookup(prefix, bindings, qname, at);
    const attrs = new Map<string, string>();
    for (const [name, value, nameAt] of raw) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      const [aprefix, alocal] = this.#split(name, nameAt);
      // Unprefixed attributes are in no namespace, whatever the default namespace is.
      const key = aprefix === '' ? alocal : `{${this.#lookup(aprefix, bindings, name, nameAt)}}${alocal}`;
      if (attrs.has(key)) this.#fail(`attribute "${name}" is repeated (same namespace and name)`, nameAt);
      attrs.set(key, value);
    }
    return { el: { ns, local, qname, attrs, depth }, bindings };
  }

  #split(name: string, at: number): [string, string] {
    const colon = name.indexOf(':');
    if (colon === -1) return ['', name];
    const prefix = name.slice(0, colon);
    const local = name.slice(colon + 1);
    if (!NCNAME.test(prefix) || !NCNAME.test(local)) this.#fail(`"${name}" is not a valid qualified name`, at);
    return [prefix, local];
  }

  /** The namespace of `prefix`: the element's own declarations first, then its ancestors'. */
  #lookup(prefix: string, own: Map<string, string> | undefined, name: string, at: number): string {
    if (prefix === 'xml') return XML_NS;
    const mine = own?.get(prefix);
    if (mine !== undefined) return mine;
    for (let i = this.#stack.length - 1; i >= 0; i--) {
      const ns = this.#stack[i]!.bindings?.get(prefix);
      if (ns !== undefined) return ns;
    }
    if (prefix === '') return '';
    return this.#fail(`the prefix "${prefix}" of "${name}" is not declared`, at);
  }
}
