// The XML namespaces Atom documents use (RFC 4287 §2, and XHTML for type="xhtml" content).

export const ATOM_NS = 'http://www.w3.org/2005/Atom';
export const XHTML_NS = 'http://www.w3.org/1999/xhtml';
