// Reading the Dockerfile and .dockerignore the way Docker does, for tests of what they assume.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Instruction {
  readonly keyword: string;
  /** The rest of the instruction, continuation lines joined. */
  readonly args: string;
  readonly line: number;
}

export interface Stage {
  readonly from: string;
  readonly name: string | undefined;
  readonly instructions: Instruction[];
}

/** The build stages of `dir/Dockerfile`, `ARG`s before the first FROM substituted into FROM. */
export function readDockerfile(dir: string): Stage[] {
  const lines = readFileSync(join(dir, 'Dockerfile'), 'utf8').split('\n');
  const instructions: Instruction[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let text = lines[i]!;
    if (/^\s*(#|$)/.test(text)) continue;
    while (text.endsWith('\\') && i + 1 < lines.length) {
      text = text.slice(0, -1);
      // Comment lines inside a continued instruction are dropped, as Docker does.
      do i++;
      while (i < lines.length && /^\s*#/.test(lines[i]!));
      text += lines[i] ?? '';
    }
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(text);
    if (!m) throw new Error(`Dockerfile line ${start + 1}: not an instruction: ${text}`);
    instructions.push({ keyword: m[1]!.toUpperCase(), args: m[2]!.trim(), line: start + 1 });
  }
  const args = new Map<string, string>();
  const stages: { from: string; name: string | undefined; instructions: Instruction[] }[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const [image, as, name] = ins.args.split(/\s+/);
      const from = image!.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => args.get((a ?? b)!) ?? '');
      stages.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0) {
      if (ins.keyword !== 'ARG') throw new Error(`Dockerfile line ${ins.line}: only ARG may precede FROM`);
      const [k, v] = ins.args.split('=');
      args.set(k!, v ?? '');
    } else {
      stages.at(-1)!.instructions.push(ins);
    }
  }
  return stages;
}

export const ofKind = (stage: Stage, keyword: string): Instruction[] => stage.instructions.filter((i) => i.keyword === keyword);

/** The JSON (exec form) argument list of CMD, ENTRYPOINT or HEALTHCHECK; throws on the shell form. */
export function execForm(ins: Instruction): string[] {
  const json = ins.keyword === 'HEALTHCHECK' ? ins.args.replace(/^.*?\bCMD\s+(?=\[)/, '') : ins.args;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error(`Dockerfile line ${ins.line}: not an exec-form list: ${json}`);
  }
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string')) throw new Error(`Dockerfile line ${ins.line}: not an exec-form list`);
  return parsed;
}

/** `KEY=value` pairs of a stage's ENV instructions (values unquoted, no substitution). */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const ins of ofKind(stage, 'ENV')) {
    for (const m of ins.args.matchAll(/(\w+)=("[^"]*"|\S*)/g)) env[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
  }
  return env;
}

export interface Copy {
  readonly from: string | undefined;
  readonly sources: string[];
  readonly dest: string;
}

/** The COPY instructions of a stage, flags (`--from`, `--chown`) read or skipped. */
export function copiesOf(stage: Stage): Copy[] {
  return ofKind(stage, 'COPY').map((ins) => {
    const words = ins.args.split(/\s+/);
    const flags = words.filter((w) => w.startsWith('--'));
    const paths = words.filter((w) => !w.startsWith('--'));
    const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
    return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
  });
}

/**
 * Whether `.dockerignore` in `dir` keeps `path` (relative, `/`-separated) out of the build
 * context. Docker's rules: patterns are relative to the context root, `*` and `?` stay within a
 * path segment, `**` spans any number, a match on a directory excludes what is under it, and the
 * last matching pattern wins (`!` re-includes).
 */
export function dockerIgnored(dir: string): (path: string) => boolean {
  const rules = readFileSync(join(dir, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const pattern = (negate ? l.slice(1) : l).replace(/^\/+/, '').replace(/\/+$/, '');
      let re = '';
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i]!;
        if (c === '*' && pattern[i + 1] === '*') {
          // `**/` may also match nothing.
          if (pattern[i + 2] === '/') {
            re += '(?:.*/)?';
            i += 2;
          } else {
            re += '.*';
            i++;
          }
        } else if (c === '*') re += '[^/]*';
        else if (c === '?') re += '[^/]';
        else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { negate, re: new RegExp(`^${re}$`) };
    });
  return (path) => {
    const parts = path.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let ignored = false;
    for (const rule of rules) if (prefixes.some((p) => rule.re.test(p))) ignored = !rule.negate;
    return ignored;
  };
}
