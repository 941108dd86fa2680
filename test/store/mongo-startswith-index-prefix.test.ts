// README "Collection queries": on MongoDB "a `startswith` is an anchored, case-sensitive regular
// expression, which MongoDB documents as read as a range of the field's index". MongoDB reads the
// range of the literal prefix it finds in the pattern (mongo/db/query/analyze_regex.cpp,
// getRegexPrefixMatch, ported below): an escape `\` + letter or digit ends that prefix ("Bail out on
// any of these escape sequences"), `\` + any other character is that character. escapeRegex wrote
// every ASCII punctuation or space as `\xHH`, so the prefix stops at the first one: `/docs`, `+49`,
// `-1`, `.env`, `_tmp` read the whole index; `John Smith` reads every `John…`.
import t from 'tap';
import { translateFilters } from '../../src/store/mongodb/translate.ts';
import { makeModel } from '../fixtures/models.ts';
import { filter } from '../store/conformance.ts';

/** MongoDB's getRegexPrefixMatch for flags '' (no `x`): the literal prefix an index range is built from. */
function regexPrefix(regex: string): string {
  let i = 0;
  if (regex.startsWith('\\A')) i = 2;
  else if (regex.startsWith('^')) i = 1;
  else return '';
  let ss = '';
  let r = '';
  while (i < regex.length) {
    let c = regex[i++]!;
    if (c === '*' || c === '?') return ss.slice(0, -1);
    if (c === '\\') {
      c = regex[i++] ?? '\0';
      if (/[A-Za-z0-9\0]/.test(c)) { r = ss; break; }
      ss += c;
    } else if ('^$.[()+{'.includes(c)) { r = ss; break; }
    else ss += c;
  }
  if (r === '' && i >= regex.length) r = ss;
  return r;
}

const MODEL = makeModel('pages', { path: 'string' });
t.test('the index range MongoDB reads for a startswith is the whole prefix', async (t) => {
  t.equal(regexPrefix('^abc'), 'abc', 'the port: a plain prefix');
  t.equal(regexPrefix('^a\\/b'), 'a/b', 'the port: `\\` + punctuation is the character');
  for (const prefix of ['/docs/', '+49 30', '-1', 'John Smith', 'a.b']) {
    const f = translateFilters(MODEL, [filter('path', 'startswith', prefix)]) as { path: { $regex: string } };
    t.equal(regexPrefix(f.path.$regex), prefix, `startswith=${prefix}: pattern ${f.path.$regex}`);
  }
});
