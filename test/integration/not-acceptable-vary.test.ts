// A 406 depends on Accept as a 200 does: it carries `Vary: Accept` (RFC 9110 §12.5.5), so that a
// cache does not answer another client's request with it. It had none (Vary was set after the
// negotiation that threw).

import t from 'tap';
import { EXAMPLE_APP, startServer } from '../helpers/server.ts';

t.test('406 says Vary: Accept', async (t) => {
  const s = await startServer({ appDir: EXAMPLE_APP });
  t.teardown(() => s.close());
  for (const path of ['/resources/employees', '/resources/employees/1']) {
    const res = await fetch(s.at(path), { headers: { accept: 'text/csv' } });
    t.equal(res.status, 406, path);
    t.match(res.headers.get('vary'), /\bAccept\b/, `${path}: Vary names Accept`);
    await res.arrayBuffer();
  }
});
