// A reader for the small subset of YAML that compose.yaml uses; anything outside it throws.
//
// Subset: block mappings and sequences by indentation, `- key: value` items, plain, 'single' and
// "double" quoted scalars, flat flow sequences (`[a, "b"]`), `#` comments. Every scalar stays a
// string (`true` is 'true'). Anchors, aliases, tags, block scalars and flow mappings are refused,
// so that a compose file using them fails its test instead of being misread.

export type YamlValue = string | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  readonly no: number;
  readonly indent: number;
  readonly text: string;
}

class YamlSubsetError extends Error {
  constructor(line: Line | undefined, message: string) {
    super(line ? `line ${line.no}: ${message}: ${line.text}` : message);
  }
}

/** The text before a comment: `#` at the start or after a space, outside quotes. */
function stripComment(raw: string): string {
  let quote: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || raw[i - 1] === ' ')) return raw.slice(0, i);
  }
  return raw;
}

const KEY = /^([A-Za-z0-9_][A-Za-z0-9_.\/-]*|"[^"\\]*"|'[^']*'):(?: +(.*))?$/;

function scalar(text: string, line: Line): YamlValue {
  const s = text.trim();
  if (s.startsWith('"')) {
    if (!s.endsWith('"') || s.length < 2) throw new YamlSubsetError(line, 'unterminated double-quoted scalar');
    // YAML's double-quoted escapes that compose files use (\" \\ \n \t \uXXXX) are JSON's.
    return JSON.parse(s) as string;
  }
  if (s.startsWith("'")) {
    if (!s.endsWith("'") || s.length < 2) throw new YamlSubsetError(line, 'unterminated single-quoted scalar');
    return s.slice(1, -1).replaceAll("''", "'");
  }
  if (s.startsWith('[')) return flowSequence(s, line);
  if (/^[{&*!|>%@`]/.test(s)) throw new YamlSubsetError(line, `"${s[0]}" is outside the subset this reader knows`);
  if (s === '' || s === '~' || s === 'null') return null;
  return s;
}

function flowSequence(s: string, line: Line): YamlValue[] {
  if (!s.endsWith(']')) throw new YamlSubsetError(line, 'a flow sequence must end on its line');
  const items: YamlValue[] = [];
  const body = s.slice(1, -1);
  let start = 0;
  let quote: string | undefined;
  for (let i = 0; i <= body.length; i++) {
    const c = body[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') throw new YamlSubsetError(line, 'nested flow collections are outside the subset');
    else if (c === ',' || c === undefined) {
      const item = body.slice(start, i).trim();
      if (item !== '') items.push(scalar(item, line));
      else if (c === ',') throw new YamlSubsetError(line, 'empty flow sequence item');
      start = i + 1;
    }
  }
  return items;
}

const isItem = (l: Line | undefined): boolean => l !== undefined && (l.text === '-' || l.text.startsWith('- '));

/** Parses `source`; throws on anything outside the subset. */
export function parseYamlSubset(source: string): YamlValue {
  const lines: Line[] = [];
  source.split(/\r?\n/).forEach((raw, i) => {
    if (/\t/.test(raw.match(/^\s*/)![0])) throw new YamlSubsetError({ no: i + 1, indent: 0, text: raw }, 'tabs cannot indent YAML');
    const text = stripComment(raw).trimEnd();
    if (text.trim() === '' || text === '---') return;
    lines.push({ no: i + 1, indent: text.length - text.trimStart().length, text: text.trimStart() });
  });
  if (lines.length === 0) return null;
  let i = 0;

  const block = (indent: number): YamlValue => (isItem(lines[i]) ? sequence(indent) : mapping(indent));

  function mapping(indent: number): YamlValue {
    const out: Record<string, YamlValue> = {};
    while (i < lines.length && lines[i]!.indent === indent && !isItem(lines[i])) {
      const line = lines[i]!;
      const m = KEY.exec(line.text);
      if (!m) throw new YamlSubsetError(line, 'expected "key: value"');
      const key = m[1]!.startsWith('"') || m[1]!.startsWith("'") ? (scalar(m[1]!, line) as string) : m[1]!;
      if (Object.hasOwn(out, key)) throw new YamlSubsetError(line, `duplicate key "${key}"`);
      i++;
      if (m[2] !== undefined && m[2].trim() !== '') {
        out[key] = scalar(m[2], line);
      } else {
        const next = lines[i];
        // A sequence may sit at its key's own indentation (`key:` then `- item`).
        if (next && (next.indent > indent || (next.indent === indent && isItem(next)))) out[key] = block(next.indent);
        else out[key] = null;
      }
    }
    if (i < lines.length && lines[i]!.indent > indent) throw new YamlSubsetError(lines[i], 'unexpected indentation');
    return out;
  }

  function sequence(indent: number): YamlValue[] {
    const out: YamlValue[] = [];
    while (i < lines.length && lines[i]!.indent === indent && isItem(lines[i])) {
      const line = lines[i]!;
      const content = line.text.slice(1).trimStart();
      const contentIndent = indent + (line.text.length - content.length);
      if (content === '') {
        i++;
        out.push(i < lines.length && lines[i]!.indent > indent ? block(lines[i]!.indent) : null);
      } else if (KEY.test(content)) {
        // `- key: value` opens a mapping whose keys line up with `key`.
        lines[i] = { no: line.no, indent: contentIndent, text: content };
        out.push(mapping(contentIndent));
      } else {
        out.push(scalar(content, line));
        i++;
      }
    }
    if (i < lines.length && lines[i]!.indent > indent) throw new YamlSubsetError(lines[i], 'unexpected indentation');
    return out;
  }

  const value = block(lines[0]!.indent);
  if (i < lines.length) throw new YamlSubsetError(lines[i], 'unexpected indentation');
  return value;
}
