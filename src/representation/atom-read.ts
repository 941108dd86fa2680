// Reading an Atom entry body (README "Representations"): the XOXO <dl> of its content, as raw field strings.

import { SvcError } from '../errors.ts';
import { ATOM_NS, XHTML_NS } from './atom-ns.ts';
import { readXml, XmlError, type XmlElement, type XmlHandler } from './xml-read.ts';

/**
 * The field strings of an Atom entry: the `<dt>`/`<dd>` pairs of the first XHTML `<dl>` inside
 * `atom:content type="xhtml"`. The rendered form wraps the dl in `<div><ol class="xoxo"><li>`;
 * those wrappers are not required, so a hand-written entry may put the dl straight in the div.
 * Other Atom elements (title, id, links, …) are ignored: the dl is the member. Values are not
 * typed here: the model validator does that (README "Models"). Throws SvcError `invalid-atom`.
 */
export function readAtomEntry(body: string): Record<string, string> {
  const reader = new EntryReader();
  try {
    readXml(body, reader);
  } catch (e) {
    if (e instanceof XmlError) {
      const where = e.line === undefined ? '' : ` (line ${e.line}, column ${e.column})`;
      throw new SvcError('invalid-atom', `The body is not well-formed XML: ${e.message}${where}.`);
    }
    throw e;
  }
  return reader.finish();
}

function invalid(message: string): never {
  throw new SvcError('invalid-atom', message);
}

/** A client-sent name for an error message, cut short: the message must not echo a whole body. */
function shown(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}

/** XML's white space (XML 1.0 §2.3 S): space, tab, CR, LF; not a no-break space. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/** `s` without XML white space at either end (String.trim would take a no-break space too). A loop, not a regex: linear on any text. */
function trimXmlSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isSpace(s.charCodeAt(start))) start++;
  while (end > start && isSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/** Where the reader is, from the outside in: entry, content, the dl, a dt or dd, past the dl. */
const STATE = { outside: 0, content: 1, dl: 2, term: 3, value: 4, afterDl: 5 } as const;
type State = (typeof STATE)[keyof typeof STATE];

class EntryReader implements XmlHandler {
  // An object without a prototype: a field named `__proto__` is plain data, and the
  // validator then rejects it as an unknown field.
  readonly #values: Record<string, string> = Object.create(null) as Record<string, string>;
  #state: State = STATE.outside;
  #contentSeen = false;
  #dlSeen = false;
  /** Depth of the element whose end leaves the current state. */
  #depth = 0;
  #buf = '';
  #pendingName: string | undefined;

  open(el: XmlElement): void {
    if (el.depth === 1) {
      if (el.ns === ATOM_NS && el.local === 'entry') return;
      if (el.ns === ATOM_NS && el.local === 'feed') invalid('The body is an Atom feed: send one Atom entry (<entry xmlns="http://www.w3.org/2005/Atom">) per member.');
      invalid(`The body's root element is <${shown(el.qname)}>${el.ns ? ` in namespace ${shown(el.ns)}` : ' in no namespace'}: send an Atom entry, <entry xmlns="${ATOM_NS}">.`);
    }
    if (el.depth === 2 && el.ns === ATOM_NS && el.local === 'content') {
      if (this.#contentSeen) invalid('The entry has more than one <content>: send one.');
      this.#contentSeen = true;
      const type = el.attrs.get('type');
      if (type !== 'xhtml') {
        invalid(`The entry's <content> has type="${type ?? 'text'}": send type="xhtml" with the fields in <div xmlns="${XHTML_NS}"><dl><dt>field</dt><dd>value</dd></dl></div>.`);
      }
      this.#enter(STATE.content, el);
      return;
    }
    switch (this.#state) {
      case STATE.content:
        if (el.ns === XHTML_NS && el.local === 'dl') {
          this.#dlSeen = true;
          this.#enter(STATE.dl, el);
        }
        return;
      case STATE.dl:
        if (el.ns === XHTML_NS && el.local === 'dt') this.#enter(STATE.term, el);
        else if (el.ns === XHTML_NS && el.local === 'dd') this.#enter(STATE.value, el);
        else invalid(`The XOXO <dl> holds a <${shown(el.qname)}>: put only <dt>field</dt><dd>value</dd> pairs in it.`);
        return;
      default:
        // Outside the content, past the dl, or markup inside a dt or dd (it counts for its text).
        return;
    }
  }

  #enter(state: State, el: XmlElement): void {
    this.#state = state;
    this.#depth = el.depth;
    this.#buf = '';
  }

  text(data: string): void {
    if (this.#state === STATE.term || this.#state === STATE.value) this.#buf += data;
    else if (this.#state === STATE.dl) {
      // Text between the dt/dd elements would be dropped, like a <p> there: refuse it as the <p>
      // is. Whitespace is only layout. Text outside the dl is ignored, as any markup there is.
      const stray = trimXmlSpace(data);
      if (stray !== '') invalid(`The XOXO <dl> holds text outside its <dt> and <dd> elements ("${shown(stray)}"): put only <dt>field</dt><dd>value</dd> pairs in it, each value inside its <dd>.`);
    }
  }

  close(el: XmlElement): void {
    if (el.depth !== this.#depth) return;
    switch (this.#state) {
      case STATE.term: {
        const name = this.#buf.trim();
        if (name === '') invalid('A <dt> of the XOXO <dl> is empty: each <dt> names a field.');
        if (this.#pendingName !== undefined) invalid(`The <dt>${shown(this.#pendingName)}</dt> has no <dd>: follow each <dt> with one <dd> holding the value.`);
        this.#pendingName = name;
        this.#state = STATE.dl;
        this.#depth = el.depth - 1;
        return;
      }
      case STATE.value: {
        const name = this.#pendingName;
        if (name === undefined) invalid('A <dd> of the XOXO <dl> has no <dt> before it: write <dt>field</dt><dd>value</dd>.');
        if (Object.hasOwn(this.#values, name)) invalid(`The field "${shown(name)}" appears more than once in the XOXO <dl>: send each field once.`);
        this.#values[name] = this.#buf;
        this.#pendingName = undefined;
        this.#state = STATE.dl;
        this.#depth = el.depth - 1;
        return;
      }
      case STATE.dl:
        if (this.#pendingName !== undefined) invalid(`The <dt>${shown(this.#pendingName)}</dt> has no <dd>: follow each <dt> with one <dd> holding the value.`);
        this.#state = STATE.afterDl;
        return;
      case STATE.content:
        this.#state = STATE.outside;
        return;
      default:
        return;
    }
  }

  finish(): Record<string, string> {
    if (!this.#contentSeen) {
      invalid(`The entry has no <content>: send the fields as <content type="xhtml"><div xmlns="${XHTML_NS}"><dl><dt>field</dt><dd>value</dd></dl></div></content>.`);
    }
    if (!this.#dlSeen) {
      invalid(`The entry's <content> holds no XOXO <dl> in the XHTML namespace: send <div xmlns="${XHTML_NS}"><dl><dt>field</dt><dd>value</dd></dl></div>.`);
    }
    return this.#values;
  }
}
