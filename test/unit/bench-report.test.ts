// The bench report lists every row: a row compared with another row (not with the group's
// baseline) follows that row, as the sandbox group's logic-then-delegate row follows the one-line handler's.

import t from 'tap';
import { summarize, type Outcome } from '../../bench/report.ts';
import type { Group, Scenario } from '../../bench/scenarios.ts';

const measured = (rps: number) => ({ requests: rps, rps, p50: 1, p99: 2, bytes: 10, errors: 0, clientCpu: 0.5 });
const row = (name: string, baseline?: string): Outcome => ({
  scenario: { name, server: 's', group: 'g', method: 'GET', path: '/', ...(baseline ? { baseline } : {}) } as Scenario,
  runs: [measured(100)],
  pairs: baseline || name !== 'base' ? [{ ratio: 1, p50Ratio: 1, p50AddedMs: 0 }] : [],
});

t.test('rows compared with a row of the group follow it, each once', async (t) => {
  const groups: Record<string, Group> = { g: { title: 'g', baseline: 'base' } as Group };
  const outcomes = [row('base'), row('logic', 'line'), row('line'), row('other')];
  t.same(
    summarize(groups, outcomes).map((r) => r.scenario.name),
    ['base', 'line', 'logic', 'other'],
  );
});
