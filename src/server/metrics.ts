// /metrics: the server's counters in the Prometheus text format, through prom-client.

import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** One served request, as the request log and the metrics see it. */
export interface RequestRecord {
  /** The app that served it ('' in single-app mode); undefined when none did (a probe, an unknown tenant, a malformed request). */
  readonly tenant: string | undefined;
  readonly status: number;
  readonly durationMs: number;
  readonly handlerCpuMs: number;
  /** The problem code the response carried, if any. */
  readonly problem?: string;
}

export interface MetricsOptions {
  /** Isolates alive now, across every app of this process. */
  isolates(): number;
  /** Renders the exposition text; default this process's registry (a worker asks the primary instead). */
  render?: () => Promise<string>;
}

export class Metrics {
  readonly registry = new Registry();
  readonly #render: () => Promise<string>;
  readonly #requests: Counter<'tenant' | 'status'>;
  readonly #duration: Histogram<'tenant'>;
  readonly #handlerCpu: Counter<'tenant'>;
  readonly #storeErrors: Counter<'tenant'>;

  constructor(opts: MetricsOptions) {
    const registers = [this.registry];
    this.#requests = new Counter({ name: 'svc_requests_total', help: 'Requests answered, by tenant and status.', labelNames: ['tenant', 'status'], registers });
    this.#duration = new Histogram({
      name: 'svc_request_duration_seconds',
      help: 'Time from a request to the end of its response, by tenant.',
      labelNames: ['tenant'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.#handlerCpu = new Counter({ name: 'svc_handler_cpu_seconds_total', help: 'CPU time handler code used in isolates, by tenant.', labelNames: ['tenant'], registers });
    this.#storeErrors = new Counter({ name: 'svc_store_errors_total', help: 'Requests answered 503 store-unavailable or failed by the store, by tenant.', labelNames: ['tenant'], registers });
    new Gauge({
      name: 'svc_isolates',
      help: 'Handler isolates alive.',
      registers,
      collect() {
        this.set(opts.isolates());
      },
    });
    this.#render = opts.render ?? (() => this.registry.metrics());
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  observe(r: RequestRecord): void {
    // Single-app mode is `app`; a request no app served is counted under the empty tenant, which no
    // tenant directory can be named (a tenant called `app` is counted as itself).
    const tenant = r.tenant === undefined ? '' : r.tenant || 'app';
    this.#requests.inc({ tenant, status: String(r.status) });
    this.#duration.observe({ tenant }, r.durationMs / 1000);
    if (r.handlerCpuMs > 0) this.#handlerCpu.inc({ tenant }, r.handlerCpuMs / 1000);
    if (r.problem?.startsWith('store-')) this.#storeErrors.inc({ tenant });
  }

  render(): Promise<string> {
    return this.#render();
  }
}
