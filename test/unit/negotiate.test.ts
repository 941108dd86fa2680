// Representation selection is a pure function of format_as, Accept and the representations on offer.

import t from 'tap';
import { negotiate, parseAccept } from '../../src/representation/negotiate.ts';
import type { Representation } from '../../src/representation/representation.ts';
import { json } from '../../src/representation/json.ts';

const atom = { ...json, name: 'atom', mediaType: 'application/atom+xml' } as Representation;
const both = [json, atom];

t.test('no Accept and no format_as is JSON', async (t) => {
  t.equal(negotiate(both, undefined, undefined).name, 'json');
  t.equal(negotiate(both, '', undefined).name, 'json');
  t.equal(negotiate(both, '*/*', undefined).name, 'json');
});

t.test('Accept selects by media type and q-value', async (t) => {
  t.equal(negotiate(both, 'application/atom+xml', undefined).name, 'atom');
  t.equal(negotiate(both, 'application/json', undefined).name, 'json');
  t.equal(negotiate(both, 'application/json;q=0.5, application/atom+xml', undefined).name, 'atom');
  t.equal(negotiate(both, 'application/json;q=0.9, application/atom+xml;q=0.1', undefined).name, 'json');
  t.equal(negotiate(both, 'text/html, application/*;q=0.2', undefined).name, 'json', 'wildcard subtype ties go to the default');
  t.equal(negotiate(both, '*/*;q=0.1, application/atom+xml', undefined).name, 'atom');
  t.equal(negotiate(both, 'application/json;q=0, */*', undefined).name, 'atom', 'q=0 excludes, more specific wins');
});

t.test('format_as wins over Accept', async (t) => {
  t.equal(negotiate(both, 'application/json', 'atom').name, 'atom');
  t.equal(negotiate(both, 'application/atom+xml', 'json').name, 'json');
  t.equal(negotiate(both, 'text/html', 'json').name, 'json', 'even when Accept admits neither');
});

t.test('406 when Accept admits neither, 400 for an unknown format_as', async (t) => {
  t.throws(() => negotiate(both, 'text/html', undefined), { code: 'not-acceptable' });
  t.throws(() => negotiate(both, 'application/json;q=0, application/atom+xml;q=0', undefined), { code: 'not-acceptable', message: /admits none/ });
  t.throws(() => negotiate(both, undefined, 'xml'), { code: 'invalid-query' });
});

t.test('parseAccept skips malformed ranges', async (t) => {
  t.same(parseAccept('garbage, application/json;q=0.5'), [{ type: 'application', subtype: 'json', q: 0.5 }]);
});
