// HEAD is GET without a body (SPEC §4), also when the response fails after it was committed. A GET
// whose handler throws after its first echo sends the status line and headers, then the connection
// is cut (README "Errors": the client sees an incomplete response). A HEAD sent nothing at all: its
// headers waited for the end of a body it never has, and the cut came first ("Empty reply from
// server"), so the client learnt neither the status nor the headers.

import t from 'tap';
import { appServer } from '../helpers/server.ts';
import { raw } from '../helpers/raw-http.ts';

const s = await appServer(t, {
  models: { notes: { fields: { text: { type: 'string' } } } },
  resources: { 'notes.ts': "zput('/request/headers/out/x-from', 'handler');\necho('[');\nthrow new Error('after the first write');\n" },
});
const port = Number(new URL(s.at('/')).port);

for (const method of ['GET', 'HEAD']) {
  t.test(`${method}: a handler that fails after its first echo sends the status and headers, then the connection is cut`, async (t) => {
    const res = await raw(port, `${method} /resources/notes HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    t.equal(res.status, 200, res.head);
    t.match(res.head, /^x-from: handler$/m, 'the headers the handler set');
    if (method === 'HEAD') {
      t.equal(res.body, '', 'no body');
    } else {
      t.match(res.body, /^1\r\n\[\r\n/, 'what the handler wrote');
      t.notMatch(res.body, /\r\n0\r\n\r\n$/, 'the chunked body is not ended: the client sees it is incomplete');
    }
  });
}
