// Escaping text for XML output, so that any stored string renders as well-formed XML 1.0.

// The five markup characters, CR (a literal CR would be read back as LF, XML 1.0 §2.11) and the
// characters XML 1.0 cannot carry at all (most C0 controls, lone surrogates, U+FFFE/U+FFFF).
const NEEDS_ESCAPE = /[<>&"'\r\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF\uD800-\uDFFF]/u;
const TO_ESCAPE = /[<>&"'\r\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF\uD800-\uDFFF]/gu;

const ENTITIES: Readonly<Record<string, string>> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#13;',
};

/**
 * Escapes `s` for element content and attribute values alike. Characters that XML 1.0 forbids
 * even as character references become U+FFFD, the replacement character: the document stays
 * well-formed, at the cost of that one character.
 */
export function escapeXml(s: string): string {
  // Most values need nothing: one test is cheaper than a replace that allocates.
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(TO_ESCAPE, (c) => ENTITIES[c] ?? '\uFFFD');
}
