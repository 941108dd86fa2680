// `--workers N`: N server processes on one port through node:cluster. The primary only forks,
// restarts, aggregates metrics and relays signals; every worker runs the whole server (main.ts).
//
// node:cluster rather than SO_REUSEPORT: the primary owns the listening socket and hands
// connections round-robin, which spreads load evenly even over a few keep-alive connections (the
// kernel's SO_REUSEPORT hashing does not), it works the same on every platform, and the primary
// is the natural place to restart a worker that died and to add up the workers' metrics.

import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

/** One worker's metrics, as prom-client exports them for aggregation. */
type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];
import type { Logger } from './exchange/log.ts';

/** `--workers auto`: one per core the process may use. */
export const autoWorkers = (): number => availableParallelism();

/** Messages between a worker and the primary. */
type Message =
  | { type: 'svc:listening'; url: string }
  | { type: 'svc:fatal'; message: string }
  | { type: 'svc:metrics'; id: number }
  | { type: 'svc:metrics-text'; id: number; text: string }
  | { type: 'svc:metrics-of-worker'; id: number }
  | { type: 'svc:metrics-json'; id: number; metrics: WorkerMetrics };

/** How long the primary waits for each worker's metrics; a worker that does not answer is left out. */
const METRICS_WAIT_MS = 2000;

/**
 * A worker that dies within this long of listening died quickly. The first such death is
 * restarted at once; each next one in a row waits twice as long as the one before, from
 * RESTART_DELAY_MS up to MAX_RESTART_DELAY_MS: a worker that a request (or a tenant) kills as soon
 * as it serves must not make the primary fork as fast as workers start.
 */
export const QUICK_DEATH_MS = 10_000;
const RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 10_000;

/** When to replace a worker that died while serving (QUICK_DEATH_MS): the primary keeps one. */
export class RestartBackoff {
  /** Workers in a row that died within QUICK_DEATH_MS of listening. */
  #quickDeaths = 0;

  /** The wait before replacing a worker that served for `livedMs`, and how many quick deaths in a row it follows. */
  next(livedMs: number): { delayMs: number; quickDeaths: number } {
    this.#quickDeaths = livedMs < QUICK_DEATH_MS ? this.#quickDeaths + 1 : 0;
    const q = this.#quickDeaths;
    return { delayMs: q <= 1 ? 0 : Math.min(MAX_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** (q - 2)), quickDeaths: q };
  }
}

const isMessage = (m: unknown): m is Message => typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string';

/**
 * Runs the primary: forks `n` workers, prints `listening` once all listen, restarts a worker
 * that dies while serving, and on SIGTERM/SIGINT drains every worker and exits 0 (1 when a worker's
 * own stop failed). A worker that
 * dies before it ever listened is a start-up failure (configuration, store): the primary stops.
 */
export function runPrimary(n: number, log: Logger, announce: (url: string) => void): void {
  let nextRequest = 1;
  /** Metrics requests to workers still waiting for an answer. */
  const pending = new Map<number, (metrics: WorkerMetrics) => void>();
  /** Each worker's counters and histograms as it last answered. */
  const lastSeen = new Map<Worker, WorkerMetrics>();
  /**
   * The counts of workers that are gone. A counter must not go down while the server runs
   * (Prometheus reads a decrease as a reset, and counts every request so far again): the counts a
   * worker had when it last answered stay in the sum after it died. Gauges are its own. Moved here
   * at once when the worker exits, so that no scrape in between misses them; added up into one
   * entry by a scrape when there are several (a worker that keeps dying cannot grow the list).
   */
  const departed: WorkerMetrics[] = [];
  let compacting = false;
  const counts = (metrics: WorkerMetrics): WorkerMetrics => metrics.filter((m) => (m.type as unknown) !== 'gauge');
  const forget = (w: Worker): void => {
    const last = lastSeen.get(w);
    lastSeen.delete(w);
    if (last !== undefined) departed.push(last);
  };

  /**
   * Every serving worker's metrics, added up, with the counts of the workers that are gone; a
   * worker that is starting is left out, one that is stuck counts as it last answered (and said so).
   */
  const clusterMetrics = async (): Promise<string> => {
    const workers = [...listening];
    const asked = workers.map(
      (w) =>
        new Promise<WorkerMetrics | undefined>((resolve) => {
          const id = nextRequest++;
          const timer = setTimeout(() => {
            pending.delete(id);
            resolve(undefined);
          }, METRICS_WAIT_MS);
          pending.set(id, (metrics) => {
            clearTimeout(timer);
            pending.delete(id);
            resolve(metrics);
          });
          if (!w.isConnected()) return resolve(undefined);
          w.send({ type: 'svc:metrics-of-worker', id } satisfies Message);
        }),
    );
    const answers = await Promise.all(asked);
    if (departed.length > 1 && !compacting) {
      // Only appended to meanwhile (one compaction at a time): the first `k` are still the ones added up.
      compacting = true;
      const k = departed.length;
      try {
        departed.splice(0, k, await AggregatorRegistry.aggregate(departed.slice(0, k)).getMetricsAsJSON());
      } finally {
        compacting = false;
      }
    }
    const all: WorkerMetrics[] = [...departed];
    workers.forEach((w, i) => {
      const a = answers[i];
      // A worker that died meanwhile is in `departed`, as it last answered before.
      if (!listening.has(w)) return;
      if (a !== undefined) {
        all.push(a);
        lastSeen.set(w, counts(a));
      } else {
        // A worker that does not answer keeps the counts it last gave, so that no counter goes down.
        const last = lastSeen.get(w);
        if (last !== undefined) all.push(last);
      }
    });
    const missing = answers.filter((a) => a === undefined).length;
    const text = all.length > 0 ? await AggregatorRegistry.aggregate(all).metrics() : '';
    return missing > 0 ? `# ${missing} of ${answers.length} workers did not answer in time; their counts are as they last answered, their gauges are left out\n${text}` : text;
  };
  const listening = new Set<Worker>();
  const fatal = new Map<Worker, string>();
  let stopping = false;
  let announced = false;
  let alive = 0;
  /** When each serving worker started listening. */
  const listenedAt = new Map<Worker, number>();
  const backoff = new RestartBackoff();

  const fork = (): void => {
    const worker = cluster.fork();
    alive++;
    worker.on('message', (m: unknown) => {
      if (!isMessage(m)) return;
      if (m.type === 'svc:listening') {
        listening.add(worker);
        listenedAt.set(worker, performance.now());
        if (!announced && listening.size === n) {
          announced = true;
          announce(m.url);
        }
      } else if (m.type === 'svc:fatal') {
        fatal.set(worker, m.message);
      } else if (m.type === 'svc:metrics-json') {
        pending.get(m.id)?.(m.metrics);
      } else if (m.type === 'svc:metrics') {
        clusterMetrics().then(
          (text) => worker.isConnected() && worker.send({ type: 'svc:metrics-text', id: m.id, text }),
          (err: unknown) => worker.isConnected() && worker.send({ type: 'svc:metrics-text', id: m.id, text: `# metrics unavailable: ${(err as Error)?.message ?? err}\n` }),
        );
      }
    });
    worker.on('exit', (code, signal) => {
      alive--;
      const served = listening.delete(worker);
      forget(worker);
      const why = fatal.get(worker);
      fatal.delete(worker);
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (stopping) {
        // A worker whose own stop failed (or that was killed during it) makes the primary's exit a
        // failure too. SIGTERM itself is no failure: a worker still starting has no handler for it yet.
        if ((code !== null && code !== 0) || (signal !== null && signal !== 'SIGTERM' && signal !== 'SIGINT')) {
          log.error(`worker ${worker.process.pid} exited (${how}) while stopping`);
          process.exitCode = 1;
        }
        if (alive === 0) process.exit();
        return;
      }
      if (!served) {
        log.error(`worker ${worker.process.pid} exited (${how}) before it could serve${why ? `: ${why}` : ''}; stopping`);
        stop(1);
        return;
      }
      const lived = performance.now() - (listenedAt.get(worker) ?? 0);
      listenedAt.delete(worker);
      const { delayMs: delay, quickDeaths } = backoff.next(lived);
      const after = delay === 0 ? '' : ` in ${delay} ms (${quickDeaths} workers in a row died within ${QUICK_DEATH_MS / 1000} s of serving)`;
      log.error(`worker ${worker.process.pid} exited (${how})${why ? ` after ${why}` : ''}; starting another${after}`);
      if (delay === 0) fork();
      else
        setTimeout(() => {
          if (!stopping) fork();
        }, delay);
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
    process.on('message', (m: unknown) => {
      if (!isMessage(m) || m.type !== 'svc:metrics-of-worker') return;
      void registry.getMetricsAsJSON().then((metrics) => process.send?.({ type: 'svc:metrics-json', id: m.id, metrics } satisfies Message));
    });
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
