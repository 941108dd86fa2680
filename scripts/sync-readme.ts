// Rewrites the README's error table from the catalogue: `node scripts/sync-readme.ts`.

import { readFileSync, writeFileSync } from 'node:fs';
import { errorTable } from './error-table.ts';

export const README = new URL('../README.md', import.meta.url);
const START = '<!-- error-table:start -->';
const END = '<!-- error-table:end -->';

export function readmeErrorTable(text: string): string {
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from === -1 || to === -1) throw new Error('README has no error-table markers');
  return text.slice(from + START.length, to).trim();
}

if (import.meta.main) {
  const text = readFileSync(README, 'utf8');
  const current = readmeErrorTable(text);
  writeFileSync(README, text.replace(`${START}\n${current}${current ? '\n' : ''}${END}`, `${START}\n${errorTable()}\n${END}`));
}
