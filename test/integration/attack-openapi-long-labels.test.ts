// Attack: long labels and descriptions. Each field's label and description were copied into every
// query parameter of its list (~17 for a string field) as well as its three schemas, so one model
// file within its 1 MiB made an OpenAPI document of 12 MB, and two of them one over the 16 MiB the
// server builds (500 models-over-limit). They are written once per schema now: a parameter's
// schema says what values it takes, the member schema what the field is.

import t from 'tap';
import { appServer } from '../helpers/server.ts';

t.test('labels and descriptions are in the schemas, not in every parameter', async (t) => {
  const fields: Record<string, unknown> = {};
  for (let i = 0; i < 1000; i++) fields[`f${i}`] = { type: 'string', index: false, label: `L${i}`.padEnd(450, 'l'), description: `D${i}`.padEnd(450, 'd') };
  const model = JSON.stringify({ fields });
  const server = await appServer(t, { models: { a: model, b: model }, resources: { 'a.ts': 'svc.delegate();\n', 'b.ts': 'svc.delegate();\n' } });
  const res = await fetch(server.at('/resources/openapi.json'));
  const text = await res.text();
  t.equal(res.status, 200, text.slice(0, 300));
  t.ok(text.length < 5 * 2 * model.length, `${text.length} characters for two models of ${model.length}`);
  const doc = JSON.parse(text) as { components: { schemas: Record<string, { properties: Record<string, { title?: string; description?: string }> }> }; paths: Record<string, { get: { parameters: { name: string; schema: Record<string, unknown> }[] } }> };
  for (const schema of ['a', 'a.create', 'a.update']) {
    t.equal(doc.components.schemas[schema]!.properties.f7!.title, `L7`.padEnd(450, 'l'), `${schema}: the label is the title`);
    t.match(doc.components.schemas[schema]!.properties.f7!.description, /^D7d+/, `${schema}: and the description`);
  }
  const params = doc.paths['/resources/a']!.get.parameters.filter((p) => p.name === 'f7' || p.name.startsWith('f7__'));
  t.ok(params.length > 10);
  for (const p of params) t.notMatch(JSON.stringify(p.schema), /L7l|D7d/, `${p.name}: no label or description`);
  t.same(params.find((p) => p.name === 'f7')!.schema, { type: 'string', maxLength: 50 });
});
