// `npm run bench`'s peer group: json-server is asked for what svc is asked for. Both
// servers are started as the bench starts them, on the same 10,000 seeded members, and each pair
// of rows must answer the same members in the same order, with the same total.

import t from 'tap';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baselineOf, GROUPS, SCENARIOS, SERVERS, type Gen, type Scenario } from '../../bench/scenarios.ts';
import { Seeds } from '../../bench/seed.ts';
import { startServer, type Started } from '../../bench/servers.ts';

const at = <T>(gen: Gen<T>, i: number): T => (typeof gen === 'function' ? (gen as (i: number) => T)(i) : gen);

/** What a response says, in terms both servers share: ids (as strings) in order, and the total. */
async function answer(server: Started, s: Scenario, i: number): Promise<{ status: number; ids?: string[]; total?: number; member?: unknown }> {
  const body = s.body === undefined ? undefined : at(s.body, i);
  const res = await fetch(server.url + at(s.path, i), { method: s.method, ...(s.headers ? { headers: s.headers } : {}), ...(body !== undefined ? { body } : {}) });
  const value = (await res.json()) as any;
  // json-server pages are `{items, data}`; svc's are an array with X-Total-Count.
  if (Array.isArray(value) || Array.isArray(value?.data)) {
    const list: { id: unknown }[] = Array.isArray(value) ? value : value.data;
    return { status: res.status, ids: list.map((m) => String(m.id)), total: Number(res.headers.get('x-total-count') ?? value.items) };
  }
  // A created member's id and time are the server's own, and each row's body is a new member:
  // the same fields must be kept. A read member must be the same member.
  const { id, updated, ...fields } = value;
  return { status: res.status, member: s.method === 'POST' ? Object.keys(fields).sort() : { ...value, id: String(id) } };
}

t.test('each svc row of the peer group answers what its json-server row answers', async (t) => {
  // Seeded on tmpfs when there is one, as bench/run.ts seeds.
  const scratch = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'svc-peer-seed-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-peer-'));
  const opts = { seeds: new Seeds(scratch, dataDir), dataDir, nodeArgs: [], log: () => {} };
  const servers = new Map<string, Started>();
  t.teardown(async () => {
    await Promise.all([...new Set(servers.values())].map((s) => s.stop()));
    rmSync(scratch, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  const rows = SCENARIOS.filter((s) => s.group === 'peer');
  // The bench gives creates servers of their own (`svc-writes`, `json-server-writes`) so that its
  // read rows see 10,000 members throughout. Here each server spec runs once: rows whose servers
  // have the same spec share its process, and the rows that write come after every row that reads.
  const bySpec = new Map<string, Started>();
  for (const name of new Set(rows.map((s) => s.server))) {
    const spec = JSON.stringify(SERVERS[name]!);
    if (!bySpec.has(spec)) bySpec.set(spec, await startServer(name, SERVERS[name]!, opts));
    servers.set(name, bySpec.get(spec)!);
  }

  const pairs = rows
    .flatMap((s) => {
      const base = baselineOf(s, GROUPS.peer!);
      return base === undefined ? [] : [[rows.find((b) => b.name === base)!, s] as const];
    })
    .sort(([a], [b]) => Number(a.method !== 'GET') - Number(b.method !== 'GET'));
  t.equal(pairs.length, 4, 'W1–W4, each an svc row beside a json-server row');
  for (const [peer, svc] of pairs) {
    t.match(peer.server, /^json-server/, `${svc.name}: compared with json-server`);
    // The first requests of each row: a page, or the first ids of the retrieve sequence.
    for (let i = 0; i < 3; i++) {
      const [a, b] = [await answer(servers.get(peer.server)!, peer, i), await answer(servers.get(svc.server)!, svc, i)];
      t.equal(a.status, peer.expect ?? 200, `${peer.name}: status`);
      t.same(b, a, `${svc.name} (request ${i + 1}) answers as ${peer.name}`);
      if (a.ids) t.ok(a.ids.length > 0 && a.total! > 0, `${peer.name}: some members match`);
    }
  }
});
