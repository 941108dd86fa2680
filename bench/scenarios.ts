// What `npm run bench` measures, as data: servers, scenarios, ratio groups and memory checks.
//
// To add a row, add a scenario (and, when it needs one, a server variant or a group). Every
// server runs in its own child process, side by side in the same run; a row's ratios are
// measured against its baseline scenario (the group's, or the row's own) in the same round.

import { rng } from './data.ts';

/** An app directory: an existing one, or files written to a fresh temp directory. */
export type AppSource =
  | { readonly dir: string }
  | {
      /** Model name → path of a model file (copied). */
      readonly models: Readonly<Record<string, string>>;
      /** Collection name → handler source. */
      readonly resources: Readonly<Record<string, string>>;
    };

export type ServerSpec =
  /** A script of this repository (path from its root) that prints `listening on http://…` on stdout. */
  | { readonly kind: 'script'; readonly file: string; readonly args?: readonly string[] }
  | {
      /** `svc serve` on an SQLite file of its own. */
      readonly kind: 'svc';
      readonly app: AppSource;
      /** Members of `employees` seeded before start (0: empty store). */
      readonly members: number;
      /** Extra `svc serve` flags (limits, runtime options). */
      readonly args?: readonly string[];
      /** Script run instead of src/cli.ts with the same `serve` flags (path from the repository root). */
      readonly entry?: string;
      /** Extra node flags. */
      readonly nodeArgs?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
    }
  | {
      /**
       * json-server (a dev dependency) on a JSON file of its own, through bench/json-server.ts: its
       * app and lowdb file store wired as its CLI wires them.
       */
      readonly kind: 'json-server';
      /** Members of `employees` written to its file before start: svc's seeded members, same ids. */
      readonly members: number;
    };

/** A request of a scenario; `i` counts the scenario's requests from 0. */
export type Gen<T> = T | ((i: number) => T);

export interface Scenario {
  readonly name: string;
  /** Key of SERVERS. */
  readonly server: string;
  /** Key of GROUPS. */
  readonly group: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: Gen<string>;
  readonly body?: Gen<string>;
  readonly headers?: Readonly<Record<string, string>>;
  /** Status every response must have, else the scenario failed (default 200). */
  readonly expect?: number;
  /**
   * Concurrent connections for this row instead of the bench's (BENCH_CONNECTIONS): 1 measures
   * the latency of one request without queueing. At 32 connections a row's p50 is mostly the
   * queue, 32 ÷ its req/s, so the p50 it adds follows from its throughput ratio.
   */
  readonly connections?: number;
  /**
   * A second load on the same server for as long as this row is measured (its own connections,
   * default 1): a mixed workload, such as creates beside retrieves. The row's figures are its own
   * load's; the second load's errors fail the row.
   */
  readonly beside?: Pick<Scenario, 'method' | 'path' | 'body' | 'headers' | 'expect' | 'connections'>;
  /** Name of the scenario of the same group this row is compared with, instead of the group's baseline. */
  readonly baseline?: string;
  /** Goals on the ratios to the row's baseline (none on a baseline itself). */
  readonly target?: Target;
}

export interface Target {
  /** req/s of this row ÷ req/s of the baseline, at least. */
  readonly minRatio?: number;
  /** p50 of this row ÷ p50 of the baseline, at most. */
  readonly maxP50Ratio?: number;
  /** p50 of this row minus p50 of the baseline, in ms, at most. */
  readonly maxP50AddedMs?: number;
}

export interface Group {
  readonly title: string;
  /**
   * Name of the scenario the group's ratios are relative to; it must be in the group. Without it,
   * every row that is not a baseline names its own (`Scenario.baseline`).
   */
  readonly baseline?: string;
  /**
   * An npm package the group's servers need. Without it installed the group is left out of the
   * default selection; naming it in BENCH_GROUPS is then an error.
   */
  readonly requires?: string;
}

/** Name of the scenario `s` is compared with, or undefined when `s` is a baseline itself. */
export function baselineOf(s: Scenario, group: Group): string | undefined {
  return s.name === group.baseline ? undefined : (s.baseline ?? group.baseline);
}

export interface MemoryCheck {
  readonly name: string;
  readonly server: string;
  readonly path: string;
  /** Members the response must hold. */
  readonly members: number;
  /** Text that occurs once per member in the body (default `{"id":`, JSON). */
  readonly marker?: string;
  /** Allowed growth of the server's resident memory while serving it, in MB (10^6 bytes). */
  readonly maxGrowthMB: number;
}

const EXAMPLE_APP = { dir: new URL('../app', import.meta.url).pathname };

/** The employees app with only the one-line delegating handler; variants change `resources`. */
export function employeesApp(handler = 'svc.delegate();\n'): AppSource {
  return { models: { employees: `${EXAMPLE_APP.dir}/models/employees.json` }, resources: { employees: handler } };
}

// A variant is one more entry, e.g. a handler with logic beside the delegating one:
//   'svc-logic': { kind: 'svc', app: employeesApp(`...handler source...`), members: 10_000 },
// or runtime options: { kind: 'svc', app: EXAMPLE_APP, members: 10_000, args: ['--cpu-limit', '50'] }.
export const SERVERS: Readonly<Record<string, ServerSpec>> = {
  // Raw node:http answering every request with a fixed 20-member JSON array.
  ceiling: { kind: 'script', file: 'bench/ceiling.ts' },
  // The ceiling spending 20 or 40 µs of CPU per request before it answers: calibration rows.
  'ceiling-20us': { kind: 'script', file: 'bench/ceiling.ts', args: ['20'] },
  'ceiling-40us': { kind: 'script', file: 'bench/ceiling.ts', args: ['40'] },
  svc: { kind: 'svc', app: EXAMPLE_APP, members: 10_000 },
  // Creates go to their own copy, so the read rows see 10,000 members throughout.
  'svc-writes': { kind: 'svc', app: EXAMPLE_APP, members: 10_000 },
  // The same model with `"index": false` on every field (bench/models/employees-unindexed.json).
  'svc-writes-unindexed': {
    kind: 'svc',
    app: { models: { employees: new URL('models/employees-unindexed.json', import.meta.url).pathname }, resources: { employees: 'svc.delegate();\n' } },
    members: 10_000,
  },
  // The same model declaring one compound index, [born__day, name] (bench/models/employees-indexed.json).
  'svc-indexed': {
    kind: 'svc',
    app: { models: { employees: new URL('models/employees-indexed.json', import.meta.url).pathname }, resources: { employees: 'svc.delegate();\n' } },
    members: 10_000,
  },
  'svc-1k': { kind: 'svc', app: EXAMPLE_APP, members: 1_000 },
  'svc-100k': { kind: 'svc', app: EXAMPLE_APP, members: 100_000 },
  // Two worker processes on one port (node:cluster); the load generator shares the two cores.
  'svc-workers-2': { kind: 'svc', app: EXAMPLE_APP, members: 10_000, args: ['--workers', '2'] },
  // The request log on: one JSON line per request on stderr (drained by the bench).
  'svc-logged': { kind: 'svc', app: EXAMPLE_APP, members: 10_000, env: { SVC_LOG_LEVEL: 'info', SVC_LOG_FORMAT: 'json' } },
  // Retrieves with creates beside them: its own copy, which the creates grow.
  'svc-mixed': { kind: 'svc', app: EXAMPLE_APP, members: 10_000 },
  // The sandbox rows: the same data, one handler each.
  'svc-direct': { kind: 'svc', app: employeesApp(), members: 10_000, entry: 'bench/svc-direct.ts' },
  'svc-delegate-line': { kind: 'svc', app: employeesApp('svc.delegate();\n'), members: 10_000 },
  'svc-delegate-isolate': { kind: 'svc', app: employeesApp('export function onRetrieve() {\n  svc.delegate();\n}\n'), members: 10_000 },
  'svc-logic': {
    kind: 'svc',
    app: employeesApp("export function onRetrieve() {\n  svc.delegate();\n  zput('/request/headers/out/x-seen', 'yes');\n}\n"),
    members: 10_000,
  },
  // The peer group's json-server: reads on one, creates on another, as for svc.
  'json-server': { kind: 'json-server', members: 10_000 },
  'json-server-writes': { kind: 'json-server', members: 10_000 },
};

// A group compares its rows with its baseline row, e.g. `sandbox: { title: 'sandboxed delegate
// vs direct default handler', baseline: 'retrieve, direct' }` and rows with `group: 'sandbox'`.
export const GROUPS: Readonly<Record<string, Group>> = {
  ceiling: { title: 'svc vs the ceiling (raw node:http, fixed 20-member array)', baseline: 'ceiling' },
  'scale-default': { title: 'first page of 20, default order: 100,000 vs 1,000 members', baseline: 'page of 20, 1k' },
  'scale-name': { title: 'first page of 20, order_by=name: 100,000 vs 1,000 members', baseline: 'page of 20 by name, 1k' },
  atom: { title: 'Atom first page of 20 vs the JSON one (same server)', baseline: 'JSON first page of 20' },
  sandbox: { title: 'retrieve through handlers vs the direct default handler (no sandbox)', baseline: 'retrieve, direct default handler' },
  latency: {
    title: 'the latency logic around delegate() adds to one request: 1 connection (no queue), vs the one-line handler',
    baseline: 'retrieve, handler `svc.delegate();` (static fast path), 1 connection',
  },
  operations: {
    title:
      '--workers 2, the JSON request log, and a loop of creates on one connection beside the load vs one process without them (retrieve by id); ' +
      'the mixed row is there because a change can win on reads alone and lose once anything writes (a memory map of the database did: ' +
      'every commit makes SQLite unmap the file)',
    baseline: 'retrieve, 1 process',
  },
  // Issue 13: svc at least 2× what a user would pick instead, measured in the same run.
  peer: {
    title:
      'svc vs json-server 1.0.0-beta.15 (its app and lowdb JSON file store, NODE_ENV=production), the peer a user might pick ' +
      'instead: W1–W4 on the same 10,000 members, each svc row beside the json-server row of its workload. json-server ' +
      'expresses every workload, W2 and W4 not exactly (see the rows\' names): its `startsWith` ignores case (the same ' +
      'members here: every name is lower case), it has no date parts, so day 5 is the string suffix "-05" of `born`, and ' +
      'a create rewrites the whole file (writes coalesced, renamed, never fsynced) where svc\'s create is durable. ' +
      'Installed as a dev dependency; left out when json-server is not installed',
    requires: 'json-server',
  },
};

/** Ids 1..n in a fixed pseudo-random sequence, the same in every run, under `collection`. */
function randomIds(n: number, collection = '/resources/employees'): (i: number) => string {
  const next = rng(42);
  return () => `${collection}/${1 + Math.floor(next() * n)}`;
}

let created = 0;
function newEmployee(): string {
  const n = ++created;
  return JSON.stringify({
    name: `bench ${n}`,
    email: `bench.${n}@example.com`,
    born: '1990-04-05',
    hired_at: '2020-01-02T03:04:05.000Z',
    salary: 50_000 + (n % 1000),
    level: 1 + (n % 10),
    active: true,
    badge: `N${n.toString(36)}`,
  });
}

const JSON_BODY = { 'content-type': 'application/json' };
const LATENCY_BASE = 'retrieve, handler `svc.delegate();` (static fast path), 1 connection';
const PAGE = '/resources/employees?count=20';
const BY_NAME = '/resources/employees?order_by=name&count=20';

// The peer group's workloads in json-server's query language (v1: README "Query params"). A page
// is `_page` + `_per_page`: without them it returns every member. Its `field:op=value` params
// coerce values that look like numbers ("-05" → -5), so W2's conditions go in `_where` (JSON).
const PEER_W1 = '/employees?_sort=name&_page=1&_per_page=20';
const PEER_W2 = `/employees?_where=${encodeURIComponent(JSON.stringify({ name: { startsWith: 'a' }, born: { endsWith: '-05' } }))}&_sort=name&_page=1&_per_page=20`;

// Each workload's json-server row is the baseline of svc's row beside it: ratio = svc ÷ json-server.
const W1_PEER = 'W1 first page of 20 by name, json-server';
const W2_PEER = 'W2 filtered page by name, json-server: _where name startsWith "a" (ignores case), born endsWith "-05" (string suffix, not a date part)';
const W3_PEER = 'W3 retrieve by id, json-server';
const W4_PEER = 'W4 create, json-server (whole file rewritten, not fsynced)';

const FILTERED = '/resources/employees?name__startswith=a&born__day=5&order_by=name&count=20';

/** A durable create of a new employee on `server`, in the ceiling group. */
function createRow(name: string, server: string, target?: Target): Scenario {
  return { name, server, group: 'ceiling', method: 'POST', path: '/resources/employees', body: newEmployee, headers: JSON_BODY, expect: 201, ...(target ? { target } : {}) };
}

export const SCENARIOS: readonly Scenario[] = [
  { name: 'ceiling', server: 'ceiling', group: 'ceiling', method: 'GET', path: '/' },
  // Calibration, no target: the ratio a server reaches that does nothing but 20 or 40 µs of work
  // per request more than the ceiling. Its load generator then idles more, and waking it costs
  // the server kernel time too (8.5 µs of system time per request at +0, 13.5 at +40, 21 at +70).
  { name: 'ceiling + 20 µs of CPU per request (calibration)', server: 'ceiling-20us', group: 'ceiling', method: 'GET', path: '/' },
  { name: 'ceiling + 40 µs of CPU per request (calibration)', server: 'ceiling-40us', group: 'ceiling', method: 'GET', path: '/' },
  { name: 'retrieve by id', server: 'svc', group: 'ceiling', method: 'GET', path: randomIds(10_000), target: { minRatio: 0.5 } },
  { name: 'first page of 20 (of 10,000)', server: 'svc', group: 'ceiling', method: 'GET', path: PAGE, target: { minRatio: 0.35 } },
  { name: 'first page of 20, order_by=name', server: 'svc', group: 'ceiling', method: 'GET', path: BY_NAME, target: { minRatio: 0.35 } },
  {
    name: 'filtered page (name__startswith=a&born__day=5&order_by=name)',
    server: 'svc',
    group: 'ceiling',
    method: 'GET',
    path: FILTERED,
    target: { minRatio: 0.2 },
  },
  {
    name: 'filtered page, the model declaring the index [born__day, name]',
    server: 'svc-indexed',
    group: 'ceiling',
    method: 'GET',
    path: FILTERED,
  },
  createRow('create (durable)', 'svc-writes', { minRatio: 0.35 }),
  createRow('create (durable), no field indexes', 'svc-writes-unindexed'),
  { name: 'JSON first page of 20', server: 'svc', group: 'atom', method: 'GET', path: PAGE },
  { name: 'Atom first page of 20', server: 'svc', group: 'atom', method: 'GET', path: `${PAGE}&format_as=atom`, target: { minRatio: 0.5 } },
  { name: 'retrieve, direct default handler', server: 'svc-direct', group: 'sandbox', method: 'GET', path: randomIds(10_000) },
  // A script that is exactly `svc.delegate()` is served without entering an isolate (compile.ts).
  { name: 'retrieve, handler `svc.delegate();` (static fast path)', server: 'svc-delegate-line', group: 'sandbox', method: 'GET', path: randomIds(10_000), target: { minRatio: 0.9 } },
  { name: 'retrieve, `onRetrieve() { svc.delegate() }` (isolate)', server: 'svc-delegate-isolate', group: 'sandbox', method: 'GET', path: randomIds(10_000), target: { minRatio: 0.65 } },
  {
    name: 'retrieve, onRetrieve delegates then sets a header (isolate)',
    server: 'svc-logic',
    group: 'sandbox',
    method: 'GET',
    path: randomIds(10_000),
    // Against the one-line handler: what logic around delegate() adds. The p50 it adds to a
    // request is the latency group's row (1 connection): here p50 is the queue of 32.
    baseline: 'retrieve, handler `svc.delegate();` (static fast path)',
    target: { minRatio: 0.5 },
  },
  { name: LATENCY_BASE, server: 'svc-delegate-line', group: 'latency', method: 'GET', path: randomIds(10_000), connections: 1 },
  {
    name: 'retrieve, onRetrieve delegates then sets a header (isolate), 1 connection',
    server: 'svc-logic',
    group: 'latency',
    method: 'GET',
    path: randomIds(10_000),
    connections: 1,
    target: { maxP50AddedMs: 1 },
  },
  { name: 'retrieve, 1 process', server: 'svc', group: 'operations', method: 'GET', path: randomIds(10_000) },
  { name: 'retrieve, --workers 2', server: 'svc-workers-2', group: 'operations', method: 'GET', path: randomIds(10_000), target: { minRatio: 1.3 } },
  { name: 'retrieve, request log on (json)', server: 'svc-logged', group: 'operations', method: 'GET', path: randomIds(10_000), target: { minRatio: 0.85 } },
  {
    name: 'retrieve, creates beside it (1 connection)',
    server: 'svc-mixed',
    group: 'operations',
    method: 'GET',
    path: randomIds(10_000),
    beside: { method: 'POST', path: '/resources/employees', body: newEmployee, headers: JSON_BODY, expect: 201 },
  },
  { name: 'page of 20, 1k', server: 'svc-1k', group: 'scale-default', method: 'GET', path: PAGE },
  { name: 'page of 20, 100k', server: 'svc-100k', group: 'scale-default', method: 'GET', path: PAGE, target: { minRatio: 0.5, maxP50Ratio: 2 } },
  { name: 'page of 20 by name, 1k', server: 'svc-1k', group: 'scale-name', method: 'GET', path: BY_NAME },
  { name: 'page of 20 by name, 100k', server: 'svc-100k', group: 'scale-name', method: 'GET', path: BY_NAME, target: { minRatio: 0.5, maxP50Ratio: 2 } },
  { name: W1_PEER, server: 'json-server', group: 'peer', method: 'GET', path: PEER_W1 },
  { name: 'W1 first page of 20 by name, svc', server: 'svc', group: 'peer', method: 'GET', path: BY_NAME, baseline: W1_PEER, target: { minRatio: 2 } },
  { name: W2_PEER, server: 'json-server', group: 'peer', method: 'GET', path: PEER_W2 },
  {
    name: 'W2 filtered page by name, svc: name__startswith=a&born__day=5',
    server: 'svc',
    group: 'peer',
    method: 'GET',
    path: FILTERED,
    baseline: W2_PEER,
    target: { minRatio: 2 },
  },
  { name: W3_PEER, server: 'json-server', group: 'peer', method: 'GET', path: randomIds(10_000, '/employees') },
  { name: 'W3 retrieve by id, svc', server: 'svc', group: 'peer', method: 'GET', path: randomIds(10_000), baseline: W3_PEER, target: { minRatio: 2 } },
  { name: W4_PEER, server: 'json-server-writes', group: 'peer', method: 'POST', path: '/employees', body: newEmployee, headers: JSON_BODY, expect: 201 },
  {
    name: 'W4 create, svc (durable)',
    server: 'svc-writes',
    group: 'peer',
    method: 'POST',
    path: '/resources/employees',
    body: newEmployee,
    headers: JSON_BODY,
    expect: 201,
    baseline: W4_PEER,
    target: { minRatio: 2 },
  },
];

/** Benchmarks that run as scripts of their own and print `RESULT {check, value, unit, max}` lines. */
export const SCRIPT_CHECKS: readonly { readonly file: string; readonly nodeArgs?: readonly string[]; readonly args?: readonly string[] }[] = [
  { file: 'bench/reload-latency.ts', args: ['10'] },
  { file: 'bench/sandbox-memory.ts', nodeArgs: ['--expose-gc'], args: ['10'] },
  { file: 'bench/noisy-neighbour.ts', args: ['5'] },
  // 100 tenants × 5 handlers; an idle time (ms) longer than touching them all takes, short enough to wait for.
  { file: 'bench/tenants-idle.ts', args: ['100', '20000'] },
];

export const MEMORY_CHECKS: readonly MemoryCheck[] = [
  { name: 'list 100,000 members unpaged', server: 'svc-100k', path: '/resources/employees', members: 100_000, maxGrowthMB: 50 },
];

/**
 * A scenario of one path as typed on a command line (bench/profile.ts, bench/ab.ts): GET, or POST
 * of a new member when it starts with "POST ". `{id}` in the path stands for ids 1..10,000 in the
 * bench's fixed pseudo-random sequence, as the retrieve rows read them.
 */
export function commandLineScenario(target: string, server: string, group: string): Scenario {
  const post = target.startsWith('POST ');
  const path = post ? target.slice(5) : target;
  const [before, after] = path.split('{id}');
  const ids = after === undefined ? undefined : randomIds(10_000, '');
  return {
    name: target,
    server,
    group,
    method: post ? 'POST' : 'GET',
    path: ids === undefined ? path : (i: number) => `${before}${ids(i).slice(1)}${after}`,
    ...(post ? { body: JSON.stringify({ name: 'Bench', born: '1990-01-05' }), headers: { 'content-type': 'application/json' }, expect: 201 } : {}),
  };
}
