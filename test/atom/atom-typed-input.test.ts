// Attack: a handler checks a field's type before delegating; an Atom body must not get around it
// by sending text. Atom values reach /request/body typed by the model, and a value that is not of
// its field's type is a 400 before the handler runs.

import t from 'tap';
import { appServer } from '../helpers/server.ts';

const ATOM = 'application/atom+xml';
const entry = (fields: Record<string, string>) =>
  `<entry xmlns="http://www.w3.org/2005/Atom"><title>x</title><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><ol class="xoxo"><li name="books"><dl>${Object.entries(fields)
    .map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`)
    .join('')}</dl></li></ol></div></content></entry>`;

const HANDLER = `export function onCreate() {
  const body = zget('/request/body') as any;
  zput('/seen', Object.keys(body).map((k) => k + ':' + typeof body[k]).join(','));
  if (typeof body.pages !== 'number' || body.pages > 1000) {
    zput('/request/status', 422);
    zput('/request/view', 'error');
    zput('/request/error/message', 'pages must be a number up to 1000; got ' + typeof body.pages);
    render();
    return;
  }
  zput('/request/headers/out/x-seen', zget('/seen'));
  svc.delegate();
}
`;

t.test('Atom values are typed before the handler sees them', async (t) => {
  const server = await appServer(t, {
    models: { books: { fields: { title: { type: 'string' }, pages: { type: 'integer' }, ok: { type: 'boolean' }, out: { type: 'date' }, note: { type: 'text' } } } },
    resources: { 'books.ts': HANDLER },
  });
  const post = (fields: Record<string, string>) => fetch(server.at('/resources/books'), { method: 'POST', headers: { 'content-type': ATOM, accept: 'application/json' }, body: entry(fields) });

  const created = await post({ title: 'Dune', pages: '412', ok: 'true', out: '1965-08-01', note: '' });
  t.equal(created.status, 201);
  t.equal(created.headers.get('x-seen'), 'title:string,pages:number,ok:boolean,out:string,note:string', 'numbers and booleans, as from JSON');
  t.match(await created.json(), { title: 'Dune', pages: 412, ok: true, out: '1965-08-01' });

  const big = await post({ title: 'Big', pages: '5000' });
  t.equal(big.status, 422, "the handler's check applies to Atom too");

  const bad = await post({ title: 'Bad', pages: 'many', ok: 'yes' });
  t.equal(bad.status, 400);
  const problem = (await bad.json()) as any;
  t.equal(problem.code, 'invalid-member');
  t.same(problem.errors.map((e: any) => e.field).sort(), ['ok', 'pages'], 'every bad value named, before the handler ran');
  t.notOk(bad.headers.get('x-seen'));

  const empty = await post({ title: 'No pages', pages: '' });
  t.equal(empty.status, 422, 'an empty value of a number field is absent, and the handler sees it so');
});
