// README "Operations": `svc_isolates` is the handler isolates alive. In single-app mode the app
// was counted twice (as the single app and again among the opened apps): one isolate showed as 2.

import t from 'tap';
import { appServer } from '../helpers/server.ts';

t.test('with --app, svc_isolates counts each isolate once', async (t) => {
  const s = await appServer(t, {
    models: { notes: { fields: { text: { type: 'string' } } } },
    // A module handler runs in an isolate (the one-line svc.delegate() does not).
    resources: { 'notes.ts': 'export function onList() { svc.delegate(); }\n' },
  });
  t.equal((await fetch(s.at('/resources/notes'))).status, 200);
  const app = (await s.apps.resolve('localhost'))!;
  const alive = app.runtime.isolates();
  t.equal(alive, 1, 'one isolate ran the request');
  const text = await (await fetch(s.at('/metrics'))).text();
  t.match(text, new RegExp(`^svc_isolates ${alive}$`, 'm'), 'the gauge says one');
  t.equal(s.apps.isolates(), alive);
});
