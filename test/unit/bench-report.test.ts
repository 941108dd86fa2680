// The bench report lists every row: a row compared with another row (not with the group's
// baseline) follows that row, as the sandbox group's logic-then-delegate row follows the one-line handler's.

import t from 'tap';
import { spreadLines, summarize, type Outcome } from '../../bench/report.ts';
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

t.test('a baseline whose runs spread by 1.25 times or more is named under the table; a steady one is not', async (t) => {
  const groups: Record<string, Group> = { g: { title: 'g', baseline: 'base' } as Group, h: { title: 'h', baseline: 'steady' } as Group };
  const outcomes: Outcome[] = [
    { ...row('base'), runs: [measured(88_000), measured(47_000), measured(65_000)] },
    { ...row('svc'), runs: [measured(37_000), measured(36_000), measured(38_000)] },
    { ...row('steady'), scenario: { ...row('steady').scenario, group: 'h' }, runs: [measured(100), measured(110)] },
  ];
  const lines = spreadLines(summarize(groups, outcomes));
  t.equal(lines.filter((l) => l.startsWith('- ')).length, 1, 'one baseline named');
  t.match(lines.join('\n'), /`base` \(group `g`\) ran from 47000 to 88000 req\/s \(1\.87×\)/);
  t.same(spreadLines(summarize({ h: groups.h! }, [outcomes[2]!])), [], 'nothing for a steady baseline');
});
