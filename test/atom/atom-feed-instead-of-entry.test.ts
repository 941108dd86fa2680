// A feed sent where an entry belongs (create, update) is 400: one entry is one member.

import t from 'tap';
import { atom } from '../../src/representation/atom.ts';
import { ctxOf, employees, fullMember, rejectsAtom, renderFeed } from '../helpers/atom-fixtures.ts';

t.test('a feed, even one this server rendered, is 400 invalid-atom', async (t) => {
  const feed = await renderFeed(ctxOf(employees), [fullMember(1), fullMember(2)]);
  rejectsAtom(t, feed, /The body is an Atom feed: send one Atom entry/);
});

t.test('an empty feed with a prefixed namespace is refused the same way', async (t) => {
  rejectsAtom(t, '<a:feed xmlns:a="http://www.w3.org/2005/Atom"/>', /The body is an Atom feed/);
});

t.test('the entry rendered for a member is accepted', async (t) => {
  const entry = atom.renderMember(ctxOf(employees), fullMember(1));
  t.equal(atom.parseMember(entry, employees).values.name, 'Ann Smith');
});
