// Hostile XML: the billion laughs (nested entity expansion) is refused before any entity is read.

import t from 'tap';
import { entryBody, rejectsAtom } from '../helpers/atom-fixtures.ts';

/** Ten levels of ten references each: 10^9 "lol"s, about 3 GB, if anything expanded it. */
function laughs(): string {
  let decls = '<!ENTITY lol0 "lol">\n';
  for (let i = 1; i <= 9; i++) decls += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">\n`;
  return decls;
}

t.test('the classic billion laughs is 400 at the DOCTYPE, fast and in bounded memory', async (t) => {
  const body = `<?xml version="1.0"?>\n<!DOCTYPE entry [\n${laughs()}]>\n${entryBody('<dt>name</dt><dd>&lol9;</dd>').replace(/^<\?xml[^>]*>\n/, '')}`;
  const { cpuMs, heapGrowth } = rejectsAtom(t, body, /a DOCTYPE is not allowed/);
  t.ok(cpuMs < 200, `rejected in ${cpuMs.toFixed(1)} ms of CPU`);
  t.ok(heapGrowth < 16 * 1024 * 1024, `heap grew by ${(heapGrowth / 1024).toFixed(0)} KiB`);
});

t.test('a DOCTYPE hidden after a BOM, whitespace and comments is still refused', async (t) => {
  const body = `\uFEFF  <!-- hello -->\n<?pi x?>\n<!DOCTYPE entry [${laughs()}]><entry xmlns="http://www.w3.org/2005/Atom">&lol9;</entry>`;
  rejectsAtom(t, body, /a DOCTYPE is not allowed/);
});

t.test('the quadratic blowup (one big entity referenced many times) is refused the same way', async (t) => {
  const big = 'x'.repeat(50_000);
  const body = `<!DOCTYPE entry [<!ENTITY a "${big}">]>${entryBody(`<dt>name</dt><dd>${'&a;'.repeat(50_000)}</dd>`).replace(/^<\?xml[^>]*>\n/, '')}`;
  const { cpuMs, heapGrowth } = rejectsAtom(t, body, /a DOCTYPE is not allowed/);
  t.ok(cpuMs < 200, `rejected in ${cpuMs.toFixed(1)} ms of CPU`);
  t.ok(heapGrowth < 16 * 1024 * 1024, `heap grew by ${(heapGrowth / 1024).toFixed(0)} KiB`);
});

t.test('an entity reference without a declaration is refused, not left as text', async (t) => {
  rejectsAtom(t, entryBody('<dt>name</dt><dd>&lol9;</dd>'), /the entity &lol9; is not allowed/);
});

t.test('entity declarations inside the document are refused', async (t) => {
  rejectsAtom(t, entryBody('<!ENTITY lol "lol"><dt>name</dt><dd>x</dd>'), /markup declarations .* are not allowed/);
});
