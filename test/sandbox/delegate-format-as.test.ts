// A handler's `format_as` before delegate() chooses the representation (README "Context keys":
// changes to /request/params before delegate() are what the default handler sees; `format_as`
// wins over Accept). The representation was chosen before the handler ran and never read again:
// a handler could change `count` but not the format.

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

t.test("the params a handler leaves choose delegate()'s representation", async (t) => {
  const s = await appServer(t, {
    models: { items: { fields: { name: { type: 'string' } } } },
    resources: {
      'items.ts': [
        'export function onList() {',
        "  const want = zget('/request/params/want');",
        "  zdelete('/request/params/want');",
        "  if (want === 'none') zdelete('/request/params/format_as');",
        "  else if (want !== undefined) zput('/request/params/format_as', want);",
        '  svc.delegate();',
        '}',
        'export function onRetrieve() {',
        "  zput('/request/params/format_as', 'atom');",
        '  svc.delegate();',
        '}',
        'export function onCreate() { svc.delegate(); }',
      ].join('\n'),
    },
  });
  t.equal((await send(s.at('/resources/items'), 'POST', { name: 'a' })).status, 201);
  const type = async (path: string, headers: Record<string, string> = {}): Promise<string> => {
    const r = await fetch(s.at(path), { headers });
    t.equal(r.status, 200, `${path}: 200`);
    await r.arrayBuffer();
    return r.headers.get('content-type') ?? '';
  };
  t.match(await type('/resources/items?want=atom'), /^application\/atom\+xml/, 'set to atom: an Atom feed');
  t.match(await type('/resources/items?format_as=atom&want=json'), /^application\/json/, 'changed to json: JSON');
  t.match(await type('/resources/items?format_as=atom&want=none'), /^application\/json/, 'removed: JSON (no Accept)');
  t.match(await type('/resources/items?format_as=json&want=none', { accept: 'application/atom+xml' }), /^application\/atom\+xml/, 'removed: Accept chooses');
  t.match(await type('/resources/items?format_as=atom'), /^application\/atom\+xml/, 'left as sent: as sent');
  t.match(await type('/resources/items/1'), /^application\/atom\+xml/, 'a member too');

  const bad = await fetch(s.at('/resources/items?want=xml'));
  t.equal(bad.status, 400, 'an unknown format set by the handler: 400');
  t.equal(((await bad.json()) as { code: string }).code, 'invalid-query');
});
