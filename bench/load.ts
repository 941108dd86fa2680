// The load generator: a closed loop of N keep-alive connections (no pipelining) for a fixed time;
// undici's Pool (newPool) for the requests that set a scenario up.

import { createHistogram } from 'node:perf_hooks';
import { Pool } from 'undici';
import { Connection, requestBytes } from './connection.ts';
import type { Gen, Scenario } from './scenarios.ts';

/** Timeouts of one request, in milliseconds: a stuck server fails the scenario instead of hanging the bench. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface LoadOptions {
  /** Concurrent connections, each with one request in flight. */
  readonly connections: number;
  /** How long to issue requests, in seconds. */
  readonly seconds: number;
}

export interface Measured {
  readonly requests: number;
  readonly rps: number;
  /** Latency percentiles, in milliseconds. */
  readonly p50: number;
  readonly p99: number;
  /** Mean response body size, in bytes. */
  readonly bytes: number;
  readonly errors: number;
  /** The `X-Total-Count` of the last list response: how many members the filters matched. */
  readonly total?: number;
  /** CPU used by the bench process (the load generator), in cores (1 = one core busy throughout). */
  readonly clientCpu: number;
  /** CPU used by the server process, in cores (set by the caller, which knows the process). */
  readonly serverCpu?: number;
  /** CPU used by every other process of the machine meanwhile, in cores: neighbours' noise. */
  readonly otherCpu?: number;
  /** The first error, for the report. */
  readonly error?: string;
}

const value = <T>(gen: Gen<T>, i: number): T => (typeof gen === 'function' ? (gen as (i: number) => T)(i) : gen);

export function newPool(url: string, connections: number): Pool {
  return new Pool(url, {
    connections,
    pipelining: 1,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
}

/**
 * Runs `scenario` against the server at `url` for `seconds`, over `connections` keep-alive
 * connections of its own (./connection.ts, not undici: see there): every connection sends its next
 * request as soon as the previous response is fully read. Requests that complete after the
 * deadline are not counted; none is started after it, so the loop ends by itself.
 */
export async function runLoad(url: string, scenario: Scenario, opts: LoadOptions): Promise<Measured> {
  const expect = scenario.expect ?? 200;
  const target = new URL(url);
  const headers = scenario.headers ?? {};
  const host = headers.host ?? headers.Host ?? target.host;
  // Paths and bodies that do not change are encoded once.
  const fixed = typeof scenario.path !== 'function' && typeof scenario.body !== 'function'
    ? requestBytes(scenario.method, scenario.path, host, headers, scenario.body)
    : undefined;
  const histogram = createHistogram();
  let sent = 0;
  let requests = 0;
  let bytes = 0;
  let errors = 0;
  let error: string | undefined;
  let total: number | undefined;
  const connections = Array.from({ length: opts.connections }, () => new Connection(target.hostname, Number(target.port)));
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(opts.seconds * 1e9));

  const worker = async (connection: Connection) => {
    while (process.hrtime.bigint() < deadline) {
      const i = sent++;
      const path = value(scenario.path, i);
      const request = fixed ?? requestBytes(scenario.method, path, host, headers, scenario.body === undefined ? undefined : value(scenario.body, i));
      const t0 = process.hrtime.bigint();
      try {
        const res = await connection.send(request, expect);
        if (res.status !== expect) {
          errors++;
          error ??= `${scenario.method} ${path}: ${res.status} (expected ${expect}) ${(res.body ?? '').slice(0, 300)}`;
          continue;
        }
        const t1 = process.hrtime.bigint();
        if (t1 > deadline) continue;
        requests++;
        bytes += res.bytes;
        if (res.total !== undefined) total = res.total;
        histogram.record(t1 - t0 || 1n);
      } catch (e) {
        errors++;
        error ??= `${scenario.method} ${path}: ${(e as Error).message}`;
        // A connection the server closed is not reused.
        return;
      }
    }
  };
  try {
    await Promise.all(connections.map(worker));
  } finally {
    for (const c of connections) c.close();
  }
  const elapsed = Number(deadline - start) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  return {
    requests,
    rps: requests / elapsed,
    p50: histogram.count ? histogram.percentile(50) / 1e6 : NaN,
    p99: histogram.count ? histogram.percentile(99) / 1e6 : NaN,
    bytes: requests ? bytes / requests : 0,
    errors,
    clientCpu: (cpu.user + cpu.system) / 1e6 / (Number(process.hrtime.bigint() - start) / 1e9),
    ...(error !== undefined ? { error } : {}),
    ...(total !== undefined ? { total } : {}),
  };
}
