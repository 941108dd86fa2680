// `--workers N`: N server processes on one port through node:cluster. The primary only forks,
// restarts, aggregates metrics and relays signals; every worker runs the whole server (main.ts).
//
// node:cluster rather than SO_REUSEPORT: the primary owns the listening socket and hands
// connections round-robin, which spreads load evenly even over a few keep-alive connections (the
// kernel's SO_REUSEPORT hashing does not), it works the same on every platform, and the primary
// is the natural place to restart a worker that died and to add up the workers' metrics.

import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from './exchange/log.ts';

/** `--workers auto`: one per core the process may use. */
export const autoWorkers = (): number => availableParallelism();

/** Messages between a worker and the primary. */
type Message =
  | { type: 'svc:listening'; url: string }
  | { type: 'svc:fatal'; message: string }
  | { type: 'svc:metrics'; id: number }
  | { type: 'svc:metrics-text'; id: number; text: string };

const isMessage = (m: unknown): m is Message => typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string';

/**
 * Runs the primary: forks `n` workers, prints `listening` once all listen, restarts a worker
 * that dies while serving, and on SIGTERM/SIGINT drains every worker and exits 0. A worker that
 * dies before it ever listened is a start-up failure (configuration, store): the primary stops.
 */
export function runPrimary(n: number, log: Logger, announce: (url: string) => void): void {
  const aggregator = new AggregatorRegistry();
  const listening = new Set<Worker>();
  const fatal = new Map<Worker, string>();
  let stopping = false;
  let announced = false;
  let alive = 0;

  const fork = (): void => {
    const worker = cluster.fork();
    alive++;
    worker.on('message', (m: unknown) => {
      if (!isMessage(m)) return;
      if (m.type === 'svc:listening') {
        listening.add(worker);
        if (!announced && listening.size === n) {
          announced = true;
          announce(m.url);
        }
      } else if (m.type === 'svc:fatal') {
        fatal.set(worker, m.message);
      } else if (m.type === 'svc:metrics') {
        aggregator.clusterMetrics().then(
          (text) => worker.isConnected() && worker.send({ type: 'svc:metrics-text', id: m.id, text }),
          (err: unknown) => worker.isConnected() && worker.send({ type: 'svc:metrics-text', id: m.id, text: `# metrics unavailable: ${(err as Error)?.message ?? err}\n` }),
        );
      }
    });
    worker.on('exit', (code, signal) => {
      alive--;
      const served = listening.delete(worker);
      const why = fatal.get(worker);
      fatal.delete(worker);
      if (stopping) {
        if (alive === 0) process.exit();
        return;
      }
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (!served) {
        log.error(`worker ${worker.process.pid} exited (${how}) before it could serve${why ? `: ${why}` : ''}; stopping`);
        stop(1);
        return;
      }
      log.error(`worker ${worker.process.pid} exited (${how})${why ? ` after ${why}` : ''}; starting another`);
      fork();
    });
  };

  const stop = (code: number): void => {
    if (stopping) return;
    stopping = true;
    process.exitCode = code;
    if (alive === 0) process.exit();
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  };
  process.on('SIGTERM', () => {
    log.info(`SIGTERM: draining ${n} workers`);
    stop(0);
  });
  process.on('SIGINT', () => stop(0));

  for (let i = 0; i < n; i++) fork();
}

let nextMetricsId = 1;

/**
 * The worker's half: tells the primary it listens, names the fatal error it is about to die of,
 * and gets /metrics for every worker from the primary (prom-client's cluster aggregation).
 */
export const worker = {
  listening(url: string): void {
    process.send?.({ type: 'svc:listening', url } satisfies Message);
  },
  fatal(message: string): void {
    process.send?.({ type: 'svc:fatal', message } satisfies Message);
  },
  /** Adds this worker's metrics to what the primary aggregates. */
  register(registry: Registry): void {
    AggregatorRegistry.setRegistries([registry]);
    // prom-client answers the primary's requests from a listener its constructor adds.
    new AggregatorRegistry();
  },
  /** /metrics of every worker, from the primary. */
  metricsText(): Promise<string> {
    return new Promise((resolve, reject) => {
      const id = nextMetricsId++;
      const timer = setTimeout(() => {
        process.off('message', onMessage);
        reject(new Error('the primary did not answer for metrics within 5 s'));
      }, 5000);
      const onMessage = (m: unknown) => {
        if (!isMessage(m) || m.type !== 'svc:metrics-text' || m.id !== id) return;
        clearTimeout(timer);
        process.off('message', onMessage);
        resolve(m.text);
      };
      process.on('message', onMessage);
      process.send?.({ type: 'svc:metrics', id } satisfies Message);
    });
  },
};
