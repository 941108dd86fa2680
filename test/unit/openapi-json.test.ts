// The OpenAPI document as the server sends it (openApiJson, built a collection at a time) is the
// JSON of openApiDocument, byte for byte.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadModel } from '../../src/model/load.ts';
import type { Model } from '../../src/model/types.ts';
import { EVENTS } from '../../src/routing/events.ts';
import { openApiDocument, openApiJson, type OpenApiInput } from '../../src/routing/openapi.ts';
import { EXAMPLE_APP } from '../helpers/server.ts';

function model(name: string, text: string): Model {
  const r = loadModel(`/app/models/${name}.json`, text);
  if (!r.ok) throw new Error(r.reason);
  return r.model;
}

t.test('the same bytes as JSON.stringify(openApiDocument(…)), with collections, without, and with names that collide', async (t) => {
  const dir = join(EXAMPLE_APP, 'models');
  const example = readdirSync(dir).map((f) => model(f.slice(0, -5), readFileSync(join(dir, f), 'utf8')));
  const odd = ['a-b', 'a_b', 'Emp', 'emp', 'Problem', 'z'].map((name) => model(name, JSON.stringify({ fields: { x: { type: 'string', label: 'é "quoted" \u2028', description: '\ud800' } } })));
  const inputs: OpenApiInput[] = [
    { app: '', origin: 'http://127.0.0.1:8080', collections: [] },
    { app: 'acme', origin: 'https://acme.example.com', collections: example.map((m) => ({ model: m, events: EVENTS })) },
    { app: 'x', origin: 'http://x', collections: odd.map((m, i) => ({ model: m, events: EVENTS.slice(0, i + 1) })) },
  ];
  for (const input of inputs) {
    const bytes = await openApiJson(input);
    t.ok(bytes.equals(Buffer.from(JSON.stringify(openApiDocument(input)))), `${input.collections.length} collections`);
  }
});
