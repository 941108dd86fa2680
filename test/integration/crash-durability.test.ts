// Acknowledged writes survive a crash: SIGKILL the server during a stream of writes, restart, find them all.
//
// Only what the server acknowledged is checked. A request in flight at the kill (sent, not
// answered) may or may not have happened: an unanswered create may have stored a member, an
// unanswered update may have replaced the name, an unanswered delete may have removed the member.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../helpers/process.ts';
import { EXAMPLE_APP } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = `sqlite:${join(dir, 'data', 'svc.sqlite')}`;

/** Acknowledged creates before the kill. */
const KILL_AFTER = 300;

/** What the client may find of one acknowledged member after the restart. */
interface Expected {
  /** Whether the member must be there, must be gone, or either (a delete in flight). */
  presence: 'present' | 'absent' | 'either';
  /** The names it may have (two while an update is in flight). */
  names: string[];
}

t.test('every acknowledged create, update and delete is there after SIGKILL', async (t) => {
  const first = await spawnServer(['--app', EXAMPLE_APP, '--store', store]);
  const url = `${first.url}/resources/departments`;
  const members = new Map<number, Expected>();
  let creates = 0;
  let inFlight = 0;
  let killed = false;
  let enough!: () => void;
  const reachedKillPoint = new Promise<void>((resolve) => (enough = resolve));
  const unexpected: string[] = [];
  // Runs one request: its status and body, or undefined if the server died before it answered in full.
  const send = async (path: string, init: RequestInit, want: number): Promise<{ status: number; body: any } | undefined> => {
    inFlight++;
    try {
      const res = await fetch(path, init);
      const text = await res.text();
      if (res.status !== want) unexpected.push(`${init.method} ${path}: ${res.status} ${text}`);
      return { status: res.status, body: res.status === want && text !== '' ? JSON.parse(text) : undefined };
    } catch {
      return undefined;
    } finally {
      inFlight--;
    }
  };
  const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  // Eight writers in parallel, each creating, sometimes updating or deleting, until the kill.
  const writer = async (w: number) => {
    for (let i = 0; !killed; i++) {
      const name = `w${w}-${i}`;
      const created = await send(url, json('POST', { name }), 201);
      if (created === undefined) return;
      if (created.status !== 201) continue;
      const id = created.body.id as number;
      members.set(id, { presence: 'present', names: [name] });
      if (++creates === KILL_AFTER) enough();
      if (i % 5 === 0) {
        // From the moment the update is sent, either name may be stored.
        members.set(id, { presence: 'present', names: [name, `${name}-u`] });
        const updated = await send(`${url}/${id}`, json('PUT', { name: `${name}-u` }), 200);
        if (updated === undefined) return;
        members.set(id, { presence: 'present', names: [updated.status === 200 ? `${name}-u` : name] });
      } else if (i % 7 === 0) {
        members.set(id, { presence: 'either', names: [name] });
        const deleted = await send(`${url}/${id}`, { method: 'DELETE' }, 204);
        if (deleted === undefined) return;
        members.set(id, deleted.status === 204 ? { presence: 'absent', names: [] } : { presence: 'present', names: [name] });
      }
    }
  };
  const writers = Array.from({ length: 8 }, (_, w) => writer(w));
  // Let writes stream, then kill without warning. (If every writer stopped early, the checks below say why.)
  await Promise.race([reachedKillPoint, Promise.all(writers)]);
  const unanswered = inFlight;
  first.child.kill('SIGKILL');
  t.equal(await first.exited, 'SIGKILL');
  killed = true;
  await Promise.all(writers);
  t.same(unexpected, [], 'every write the server answered before the kill succeeded');
  t.ok(creates >= KILL_AFTER, `${creates} creates acknowledged before the kill`);
  t.comment(`${unanswered} requests were in flight at the kill`);

  const second = await spawnServer(['--app', EXAMPLE_APP, '--store', store]);
  t.teardown(() => {
    second.child.kill('SIGKILL');
  });
  const res = await fetch(`${second.url}/resources/departments`);
  const stored = new Map<number, string>((await res.json() as any).map((m: { id: number; name: string }) => [m.id, m.name]));
  const lost = { creates: [] as number[], updates: [] as number[], deletes: [] as number[] };
  for (const [id, want] of members) {
    const name = stored.get(id);
    if (want.presence === 'absent') {
      if (name !== undefined) lost.deletes.push(id);
    } else if (name === undefined) {
      if (want.presence === 'present') lost.creates.push(id);
    } else if (!want.names.includes(name)) {
      lost.updates.push(id);
    }
  }
  t.same(lost.creates, [], 'no acknowledged member is missing');
  t.same(lost.updates, [], 'no acknowledged update is lost');
  t.same(lost.deletes, [], 'no acknowledged delete is undone');
  const created = await fetch(`${second.url}/resources/departments`, json('POST', { name: 'after' }));
  const { id } = await created.json() as any;
  t.ok(id > Math.max(...members.keys()), 'ids are not reused after the crash');
});
