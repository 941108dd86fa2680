// The README's error catalogue is the code's catalogue (run `node scripts/sync-readme.ts` after changing it).

import t from 'tap';
import { readFileSync } from 'node:fs';
import { errorTable } from '../../scripts/error-table.ts';
import { README, readmeErrorTable } from '../../scripts/sync-readme.ts';

t.equal(readmeErrorTable(readFileSync(README, 'utf8')), errorTable());
