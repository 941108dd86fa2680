// Models, members and render contexts shared by the Atom unit tests and hostile-XML tests.

import type { Test } from 'tap';
import { SvcError } from '../../src/errors.ts';
import { loadModel } from '../../src/model/load.ts';
import type { Member, Model } from '../../src/model/types.ts';
import { atom } from '../../src/representation/atom.ts';
import type { RenderContext } from '../../src/representation/representation.ts';

/** Builds a model the way the server does, from the JSON text of `models/<name>.json`. */
export function model(name: string, doc: unknown): Model {
  const r = loadModel(`/app/models/${name}.json`, JSON.stringify(doc));
  if (!r.ok) throw new Error(`fixture model ${name}: ${r.reason}`);
  return r.model;
}

/** One field of every declared type. */
export const employees = model('employees', {
  fields: {
    name: { type: 'string', required: true },
    notes: { type: 'text' },
    age: { type: 'integer' },
    score: { type: 'float' },
    active: { type: 'boolean' },
    birthday: { type: 'date' },
    hired: { type: 'date-time' },
  },
});

export const ORIGIN = 'http://example.test:8080';
export const COLLECTION_URL = `${ORIGIN}/resources/employees`;

export function ctxOf(m: Model, extra: Partial<RenderContext> = {}): RenderContext {
  return { model: m, collectionUrl: `${ORIGIN}/resources/${m.name}`, ...extra };
}

/** A stored member in canonical form, every field present. */
export function fullMember(id = 3, overrides: Partial<Member> = {}): Member {
  return {
    id,
    updated: '2024-05-06T07:08:09.123Z',
    name: 'Ann Smith',
    notes: 'first line\nsecond line',
    age: 42,
    score: 2.5,
    active: false,
    birthday: '1982-02-03',
    hired: '2020-01-02T03:04:05.000Z',
    ...overrides,
  } as Member;
}

export async function* iterate(members: Iterable<Member>): AsyncIterable<Member> {
  for (const m of members) yield m;
}

/** Renders a whole feed to one string. */
export async function renderFeed(ctx: RenderContext, members: Iterable<Member>): Promise<string> {
  let out = '';
  for await (const chunk of atom.renderCollection(ctx, iterate(members))) out += chunk;
  return out;
}

/** A minimal Atom entry body carrying `dl` (the inside of the XOXO `<dl>`). */
export function entryBody(dl: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<entry xmlns="http://www.w3.org/2005/Atom"><title>t</title>' +
    `<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><ol class="xoxo"><li name="employees"><dl>${dl}</dl></li></ol></div></content></entry>`
  );
}

/**
 * Asserts that parsing `body` as an Atom entry fails with a 400 `invalid-atom` whose message
 * matches `message`, and returns the CPU time the attempt took (ms) and how much the heap grew
 * (bytes). CPU time of this thread, not wall-clock time: other processes on a busy machine do
 * not count, a parser that works too hard does.
 */
export function rejectsAtom(t: Test, body: string, message: RegExp, model: Model = employees): { cpuMs: number; heapGrowth: number } {
  const heapBefore = process.memoryUsage().heapUsed;
  const start = process.threadCpuUsage();
  let caught: unknown;
  try {
    atom.parseMember(body, model);
  } catch (e) {
    caught = e;
  }
  const used = process.threadCpuUsage(start);
  const cpuMs = (used.user + used.system) / 1000;
  const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
  t.ok(caught instanceof SvcError, 'throws an SvcError');
  const err = caught as SvcError;
  t.equal(err.code, 'invalid-atom');
  t.equal(err.status, 400);
  t.match(err.message, message);
  return { cpuMs, heapGrowth };
}
