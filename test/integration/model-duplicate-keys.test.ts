// A model file with a key written twice: JSON.parse kept the last and dropped the other without a
// word, so a typo lost a declaration. Two "name" fields served one, of the second's type (the
// first's `required` gone: a create without a name was 201), and `"type"` twice in a field served
// the last type. Such a model is now invalid, like any other: 500 model-invalid for its collection
// only, in the log and in `svc check`, naming the key and the path to it.

import t from 'tap';
import { textSink } from '../../src/exchange/log.ts';
import { runSvc } from '../helpers/process.ts';
import { appServer, send } from '../helpers/server.ts';

const TWO_FIELDS = '{ "fields": {\n  "name": { "type": "string", "required": true },\n  "name": { "type": "text" } } }';
const TWO_TYPES = '{ "fields": { "born": { "type": "date", "type": "string" } } }';
const at = (text: string, key: string) => text.lastIndexOf(`"${key}"`);

const log: string[] = [];
const server = await appServer(
  t,
  {
    models: { people: TWO_FIELDS, events: TWO_TYPES, notes: { fields: { text: { type: 'string' } } } },
    resources: { 'people.ts': 'svc.delegate();\n', 'events.ts': 'svc.delegate();\n', 'notes.ts': 'svc.delegate();\n' },
  },
  { log: textSink((line) => log.push(line)) },
);

t.test('a request to the collection is 500 model-invalid naming the key and where it is; nothing is stored', async (t) => {
  const res = await send(server.at('/resources/people'), 'POST', {});
  t.equal(res.status, 500);
  t.match(await res.json(), {
    code: 'model-invalid',
    detail: `models/people.json is invalid: fields: the key "name" appears more than once (at character ${at(TWO_FIELDS, 'name')}): write each key once`,
  });
  const events = await send(server.at('/resources/events'), 'POST', { born: 'yesterday' });
  t.equal(events.status, 500);
  t.match(await events.json(), { code: 'model-invalid', detail: `models/events.json is invalid: fields.born: the key "type" appears more than once (at character ${at(TWO_TYPES, 'type')})` });
  t.equal((await send(server.at('/resources/notes'), 'GET')).status, 200, 'other models keep serving');
  t.match(log.join('\n'), /model models\/people\.json rejected: fields: the key "name" appears more than once/);

  server.write('models/people.json', '{ "fields": { "name": { "type": "string", "required": true } } }');
  t.same(await (await send(server.at('/resources/people'), 'GET')).json(), [], 'the fixed model serves, and nothing was stored');
});

t.test('svc check names the file, the path and the key', async (t) => {
  server.write('models/people.json', TWO_FIELDS);
  const { code, out } = await runSvc(['check', '--app', server.dir]);
  t.equal(code, 1);
  t.match(out, /^models\/people\.json: fields: the key "name" appears more than once \(at character \d+\): write each key once$/m);
  t.match(out, /^models\/events\.json: fields\.born: the key "type" appears more than once/m);
  t.notMatch(out, /notes\.json/);
  t.match(out, /svc check: 2 problems/);
});
