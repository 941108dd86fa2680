// The default handler over HTTP (SPEC §5): statuses, Location, bodies, 404/415/400, ETags and update semantics.

import t from 'tap';
import { appServer, eachHandlerForm, send } from '../helpers/server.ts';

eachHandlerForm(t, async (t, delegate) => {
  const server = await appServer(t, {
    models: {
      people: {
        fields: {
          name: { type: 'string', required: true, max_length: 10 },
          note: { type: 'text' },
          age: { type: 'integer' },
          score: { type: 'float' },
          active: { type: 'boolean', default_value: true },
          born: { type: 'date' },
          seen: { type: 'date-time' },
          badge: { type: 'string', editable: false },
        },
      },
    },
    resources: { 'people.ts': delegate },
  });
  const url = server.at('/resources/people');

  t.test('create is 201 with Location and the created member', async (t) => {
    const res = await send(url, 'POST', { name: 'Ann', age: 30, born: '1994-02-28', seen: '2024-05-01T12:00:00+02:00', badge: 'B1' });
    t.equal(res.status, 201);
    const body = await res.json() as any;
    t.equal(res.headers.get('location'), `${url}/${body.id}`);
    t.match(res.headers.get('content-type'), /^application\/json/);
    t.ok(res.headers.get('etag'), 'ETag on create');
    t.equal(body.name, 'Ann');
    t.equal(body.active, true, 'default_value applied');
    t.equal(body.seen, '2024-05-01T10:00:00.000Z', 'date-time stored in UTC with milliseconds');
    t.match(body.updated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    t.notOk('note' in body, 'absent fields are left out');
  });

  t.test('non-ASCII members: the bytes sent are their UTF-8, and Content-Length counts bytes', async (t) => {
    // Over 64 Ki units: a list of it is streamed (chunked); the member alone is one write.
    const note = 'é, 中文 and 😀. '.repeat(6000);
    const posted = await send(url, 'POST', { name: 'Zoë', note });
    t.equal(posted.status, 201);
    const created = (await posted.json()) as { id: number };
    for (const [at, streamed] of [[`${url}/${created.id}`, false], [`${url}?count=20&name=Zoë`, true], [`${url}?name=Zoë`, true]] as const) {
      const res = await fetch(at);
      const bytes = Buffer.from(await res.arrayBuffer());
      const declared = res.headers.get('content-length');
      t.equal(declared === null, streamed, `${at}: ${streamed ? 'streamed' : 'one write'}`);
      t.equal(declared === null ? bytes.length : Number(declared), bytes.length, 'Content-Length, when declared, is the byte count');
      t.ok(bytes.length > bytes.toString('utf8').length, 'more bytes than characters');
      const body = JSON.parse(bytes.toString('utf8'));
      t.same(Array.isArray(body) ? body.map((m: { note: string }) => m.note) : [body.note], [note], 'the text round-trips');
      const head = await fetch(at, { method: 'HEAD' });
      t.equal(head.headers.get('content-length'), res.headers.get('content-length'), 'HEAD declares the same length');
    }
    await send(`${url}/${created.id}`, 'DELETE');
  });

  t.test('create without Content-Type is read as JSON; other media types are 415', async (t) => {
    // A byte body makes fetch send no Content-Type at all.
    const res = await fetch(url, { method: 'POST', body: Buffer.from(JSON.stringify({ name: 'NoCT' })) });
    t.equal(res.status, 201);
    const bad = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"name":"x"}' });
    t.equal(bad.status, 415);
    t.match(await bad.json() as any, { code: 'unsupported-media-type', status: 415 });
  });

  t.test('unparsable and non-object bodies are 400', async (t) => {
    for (const body of ['{"name":', '[1,2]', '"x"', 'null', '']) {
      const res = await send(url, 'POST', body);
      t.equal(res.status, 400, JSON.stringify(body));
      t.equal(res.headers.get('content-type'), 'application/problem+json');
      t.equal((await res.json() as any).code, 'invalid-json');
    }
  });

  t.test('a body that is not UTF-8 is refused, never stored with replacement characters', async (t) => {
    const before = (await (await fetch(url)).json() as unknown[]).length;
    const bytes = (hex: string) => Buffer.from(hex.replace(/ /g, ''), 'hex');
    // {"name":"ok<C3>"} (a cut sequence), {"name":"<ED A0 80>"} (an encoded surrogate), {"name":"caf<E9>"} (Latin-1)
    for (const body of [Buffer.concat([Buffer.from('{"name":"ok'), bytes('c3'), Buffer.from('"}')]), Buffer.concat([Buffer.from('{"name":"'), bytes('ed a0 80'), Buffer.from('"}')]), Buffer.concat([Buffer.from('{"name":"caf'), bytes('e9'), Buffer.from('"}')])]) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      t.equal(res.status, 400, body.toString('hex'));
      t.match(await res.json(), { code: 'invalid-json', detail: /not valid UTF-8/ });
    }
    const entry = Buffer.concat([Buffer.from('<entry xmlns="http://www.w3.org/2005/Atom"><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><dl><dt>name</dt><dd>a'), bytes('ff'), Buffer.from('b</dd></dl></div></content></entry>')]);
    const atom = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/atom+xml' }, body: entry });
    t.equal(atom.status, 400);
    t.match(await atom.json(), { code: 'invalid-atom', detail: /not valid UTF-8/ });
    // Another charset declared is refused as such, even for text that would also be UTF-8.
    const latin1 = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json; charset=ISO-8859-1' }, body: '{"name":"cafe"}' });
    t.equal(latin1.status, 415);
    t.match(await latin1.json(), { code: 'unsupported-media-type', detail: /charset "iso-8859-1" is not accepted/ });
    t.equal((await (await fetch(url)).json() as unknown[]).length, before, 'nothing stored');
    // UTF-8 (declared or not, with a byte order mark or not) is read as before.
    for (const [type, body] of [['application/json; charset="UTF-8"', '{"name":"café"}'], ['application/json', '\ufeff{"name":"中文"}']]) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': type! }, body });
      t.equal(res.status, 201, type);
      t.equal((await res.json() as { name: string }).name, body!.replace('\ufeff', '').slice(9, -2));
    }
  });

  t.test('validation names every offending field', async (t) => {
    const res = await send(url, 'POST', { age: 1.5, score: 'high', name: 'x'.repeat(11), born: '2023-02-29', seen: '2024-01-01T00:00:00', active: 'yes', extra: 1 });
    t.equal(res.status, 400);
    const problem = await res.json() as any;
    t.equal(problem.code, 'invalid-member');
    const fields = problem.errors.map((e: { field: string }) => e.field).sort();
    t.same(fields, ['active', 'age', 'born', 'extra', 'name', 'score', 'seen']);
    const missing = await send(url, 'POST', { age: 3 });
    t.same((await missing.json() as any).errors, [{ field: 'name', message: 'is required' }]);
    const count = await fetch(url);
    t.notOk((await count.json() as any).some((m: { age?: number }) => m.age === 3), 'nothing stored');
  });

  t.test('strings with a lone surrogate are refused, not silently changed', async (t) => {
    const res = await send(url, 'POST', '{"name":"a\\ud800b"}');
    t.equal(res.status, 400);
    t.match((await res.json() as any).errors, [{ field: 'name', message: /lone surrogate/ }]);
  });

  t.test('a byte order mark before JSON is ignored', async (t) => {
    const res = await send(url, 'POST', '\ufeff{"name":"Bom"}');
    t.equal(res.status, 201);
  });

  t.test('max_length counts characters, not bytes', async (t) => {
    const res = await send(url, 'POST', { name: 'éééééééééé' });
    t.equal(res.status, 201);
  });

  t.test('prototype pollution keys are plain data and rejected as unknown fields', async (t) => {
    const res = await send(url, 'POST', '{"name":"P","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
    t.equal(res.status, 400);
    const fields = (await res.json() as any).errors.map((e: { field: string }) => e.field).sort();
    t.same(fields, ['__proto__', 'constructor']);
    t.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  t.test('retrieve, 404 for missing and non-integer ids', async (t) => {
    const created = await (await send(url, 'POST', { name: 'Bo' })).json() as any;
    const res = await fetch(`${url}/${created.id}`);
    t.equal(res.status, 200);
    t.same(await res.json() as any, created);
    for (const id of ['999999', 'abc', '1.5', '-1', '0', '01', '1e3']) {
      const r = await fetch(`${url}/${id}`);
      t.equal(r.status, 404, id);
      t.equal((await r.json() as any).code, 'member-not-found');
    }
  });

  t.test('update replaces every editable field; absent fields become absent', async (t) => {
    const created = await (await send(url, 'POST', { name: 'Cy', age: 5, note: 'n', badge: 'K' })).json() as any;
    const res = await send(`${url}/${created.id}`, 'PUT', { name: 'Cy2', score: 1.5 });
    t.equal(res.status, 200);
    const updated = await res.json() as any;
    t.equal(updated.name, 'Cy2');
    t.equal(updated.score, 1.5);
    t.notOk('age' in updated, 'age became absent');
    t.notOk('note' in updated, 'note became absent');
    t.notOk('active' in updated, 'defaults apply on create only');
    t.equal(updated.badge, 'K', 'non-editable field kept');
    t.not(updated.updated, created.updated, 'updated changes');
    t.same(await (await fetch(`${url}/${created.id}`)).json() as any, updated, 'stored as returned');
  });

  t.test('non-editable fields can be set on create but not changed by update', async (t) => {
    const created = await (await send(url, 'POST', { name: 'Di', badge: 'A' })).json() as any;
    const same = await send(`${url}/${created.id}`, 'PUT', { name: 'Di', badge: 'A' });
    t.equal(same.status, 200, 'repeating the current value is fine');
    const changed = await send(`${url}/${created.id}`, 'PUT', { name: 'Di', badge: 'Z' });
    t.equal(changed.status, 400);
    t.same((await changed.json() as any).errors, [{ field: 'badge', message: 'is not editable; leave it out or send its current value' }]);
    t.equal((await (await fetch(`${url}/${created.id}`)).json() as any).badge, 'A');
  });

  t.test('a body id must equal the URL id; a body updated is ignored', async (t) => {
    const created = await (await send(url, 'POST', { name: 'Ed' })).json() as any;
    const bad = await send(`${url}/${created.id}`, 'PUT', { id: created.id + 1, name: 'Ed' });
    t.equal(bad.status, 400);
    t.equal((await bad.json() as any).errors[0].field, 'id');
    const ok = await send(`${url}/${created.id}`, 'PUT', { id: created.id, name: 'Ed', updated: '2000-01-01T00:00:00.000Z' });
    t.equal(ok.status, 200);
    t.not((await ok.json() as any).updated, '2000-01-01T00:00:00.000Z');
    const onCreate = await send(url, 'POST', { id: 77, name: 'Id' });
    t.equal(onCreate.status, 400, 'id is assigned by the server');
  });

  t.test('update and delete of a missing member are 404', async (t) => {
    t.equal((await send(`${url}/424242`, 'PUT', { name: 'X' })).status, 404);
    t.equal((await send(`${url}/424242`, 'DELETE')).status, 404);
  });

  t.test('ETag, If-None-Match 304 and If-Match 412', async (t) => {
    const created = await send(url, 'POST', { name: 'Fi' });
    const member = await created.json() as any;
    const etag = created.headers.get('etag')!;
    const get = await fetch(`${url}/${member.id}`);
    t.equal(get.headers.get('etag'), etag);
    const notModified = await fetch(`${url}/${member.id}`, { headers: { 'if-none-match': etag } });
    t.equal(notModified.status, 304);
    t.equal(await notModified.text(), '');
    const weak = await fetch(`${url}/${member.id}`, { headers: { 'if-none-match': `W/${etag}` } });
    t.equal(weak.status, 304, 'If-None-Match compares weakly');

    const upd = await send(`${url}/${member.id}`, 'PUT', { name: 'Fi2' }, { 'if-match': etag });
    t.equal(upd.status, 200);
    const newTag = upd.headers.get('etag')!;
    t.not(newTag, etag);
    const stale = await send(`${url}/${member.id}`, 'PUT', { name: 'Fi3' }, { 'if-match': etag });
    t.equal(stale.status, 412);
    t.equal((await stale.json() as any).code, 'precondition-failed');
    t.equal((await (await fetch(`${url}/${member.id}`)).json() as any).name, 'Fi2', 'a 412 changes nothing');
    t.equal((await send(`${url}/${member.id}`, 'PUT', { name: 'Fi3' }, { 'if-match': `W/${newTag}` })).status, 412, 'If-Match compares strongly');
    t.equal((await fetch(`${url}/${member.id}`, { headers: { 'if-none-match': etag } })).status, 200, 'old tag no longer matches');

    const staleDelete = await send(`${url}/${member.id}`, 'DELETE', undefined, { 'if-match': etag });
    t.equal(staleDelete.status, 412);
    t.equal((await fetch(`${url}/${member.id}`)).status, 200, 'still there');
    const del = await send(`${url}/${member.id}`, 'DELETE', undefined, { 'if-match': newTag });
    t.equal(del.status, 204);
    t.equal(await del.text(), '');
    t.equal((await fetch(`${url}/${member.id}`)).status, 404);
  });

  t.test('two updates in the same millisecond still change the ETag', async (t) => {
    const created = await send(url, 'POST', { name: 'Gu' });
    const { id } = await created.json() as any;
    const tags = new Set<string>([created.headers.get('etag')!]);
    for (let i = 0; i < 5; i++) tags.add((await send(`${url}/${id}`, 'PUT', { name: `Gu${i}` })).headers.get('etag')!);
    t.equal(tags.size, 6);
  });

  t.test('default handler answers 405 with Allow for putCollection, deleteCollection, postMember', async (t) => {
    const put = await send(url, 'PUT', { name: 'x' });
    t.equal(put.status, 405);
    t.equal(put.headers.get('allow'), 'GET, POST, HEAD');
    t.equal((await put.json() as any).code, 'method-not-allowed');
    const del = await send(url, 'DELETE');
    t.equal(del.status, 405);
    const post = await send(`${url}/1`, 'POST', { name: 'x' });
    t.equal(post.status, 405);
    t.equal(post.headers.get('allow'), 'GET, PUT, DELETE, HEAD');
  });

  t.test('a member URL with path info is 404 for the default handler', async (t) => {
    const { id } = await (await send(url, 'POST', { name: 'Ha' })).json() as any;
    t.equal((await fetch(`${url}/${id}/photo`)).status, 404);
  });

  t.test('ids are never reused after deleting the newest member', async (t) => {
    const a = await (await send(url, 'POST', { name: 'Ia' })).json() as any;
    t.equal((await send(`${url}/${a.id}`, 'DELETE')).status, 204);
    const b = await (await send(url, 'POST', { name: 'Ib' })).json() as any;
    t.ok(b.id > a.id);
  });

  t.test('HEAD is GET without a body', async (t) => {
    const { id } = await (await send(url, 'POST', { name: 'He' })).json() as any;
    const head = await fetch(`${url}/${id}`, { method: 'HEAD' });
    t.equal(head.status, 200);
    t.ok(head.headers.get('etag'));
    t.equal(await head.text(), '');
    const list = await fetch(url, { method: 'HEAD' });
    t.equal(list.status, 200);
    t.ok(Number(list.headers.get('x-total-count')) > 0);
    t.equal(await list.text(), '');
  });
});
