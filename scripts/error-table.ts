// Prints the error catalogue as the Markdown table the README reproduces (test/unit/readme.test.ts checks it).

import { CATALOGUE } from '../src/errors.ts';

export function errorTable(): string {
  const rows = Object.entries(CATALOGUE).map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.fix.replaceAll('|', '\\|')} |`);
  return ['| code | status | what to do |', '|---|---|---|', ...rows].join('\n');
}

if (import.meta.main) console.log(errorTable());
