// Field names the query parser misread. A field named `<collection>Id` (empId in emp) could not be
// filtered on a list: the default handler skipped that parameter as if it were a member URL's id,
// so `?empId=1` listed every member and `?empId=abc` was 200. And a field whose name ends in `_`
// (`a_`, `_`) took no condition: `a___gt` was split at its first `__`, "unknown field a"; so was
// the index key `d___day`. A parameter is split at its last `__` (a field name has none).

import t from 'tap';
import { appServer, send } from '../helpers/server.ts';

t.test('a field named <collection>Id, and fields ending in _', async (t) => {
  const s = await appServer(t, {
    models: {
      emp: { fields: { empId: { type: 'integer' }, a_: { type: 'integer' }, _: { type: 'integer' }, d_: { type: 'date' } }, indexes: [['d___day', 'a_']] },
    },
    resources: { 'emp.ts': 'svc.delegate();\n' },
  });
  const url = s.at('/resources/emp');
  for (const [i, d] of ['2024-01-05', '2024-02-06', '2024-03-05'].entries()) {
    t.equal((await send(url, 'POST', { empId: i + 1, a_: i + 1, _: 10 * (i + 1), d_: d })).status, 201);
  }
  const ids = async (qs: string): Promise<number[]> => {
    const r = await fetch(`${url}?${qs}`);
    t.equal(r.status, 200, `?${qs}: 200`);
    return ((await r.json()) as { id: number }[]).map((m) => m.id);
  };
  t.same(await ids('empId=2'), [2], 'empId=2 filters');
  t.same(await ids('empId__gt=1'), [2, 3]);
  const bad = await fetch(`${url}?empId=abc`);
  t.equal(bad.status, 400, 'empId=abc: 400, a value that does not parse');
  t.same(await ids('a___gt=1'), [2, 3], 'a___gt: the field a_');
  t.same(await ids('___lte=20'), [1, 2], '___lte: the field _');
  t.same(await ids('d___day=5&order_by=a_'), [1, 3], 'd___day: a date part of d_');
  const unknown = await fetch(`${s.at('/resources/emp')}?otherId=1`);
  t.equal(unknown.status, 400, 'a parameter that names no field, spelled like an id: 400 unknown field');
  // A member URL still reads its id from the URL.
  t.equal((await (await fetch(`${url}/2`)).json() as { empId: number }).empId, 2);
});
