// Start-up: configuration in, a listening server out; the one place the log sink and the handler runtime are wired.

import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { Logger, serverLogger, type LogSink } from './exchange/log.ts';
import type { RuntimeFactory } from './exchange/runtime.ts';
import { onTrimmed } from './malloc-trim.ts';
import { guardMemory } from './sandbox/memory-guard.ts';
import { endProcess, sandboxRuntime } from './sandbox/runtime.ts';
import { Metrics } from './server/metrics.ts';
import { createSvcServer, type SvcServer } from './server/server.ts';
import { Apps } from './tenancy/tenants.ts';

export interface Running {
  /** `http://host:port` the server listens on. */
  readonly url: string;
  readonly port: number;
  readonly apps: Apps;
  readonly svc: SvcServer;
  readonly metrics: Metrics;
  /** Graceful stop: in-flight requests finish, then apps and stores close. */
  close(): Promise<void>;
}

export interface Wiring {
  /** The handler runtime of every app. Default: the sandbox (src/sandbox). */
  runtime?: RuntimeFactory;
  /** Where every log record goes. Default: standard error, in the configured format and level. */
  log?: LogSink;
  /** Renders /metrics; default this process's metrics (a worker process asks its primary for every worker's). */
  metricsText?: () => Promise<string>;
  /** What ends the process when it stays over --max-rss. Default: SIGTERM to itself (sandbox/runtime.ts). */
  endProcess?: () => void;
}

export async function start(config: Config, wiring: Wiring = {}): Promise<Running> {
  // A sink given by the caller (tests) gets every record; the command line's gets those of --log-level and above.
  const log = wiring.log ? new Logger(wiring.log) : serverLogger(config.logFormat, config.logLevel);
  const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  onTrimmed((t) => log.debug(`memory: malloc_trim after releases: resident ${mib(t.rssBefore)} → ${mib(t.rssAfter)} MiB (${t.ms.toFixed(1)} ms)`));
  const apps = new Apps(config, wiring.runtime ?? sandboxRuntime, log);
  await apps.start();
  const guard = config.maxRssMiB > 0 ? guardMemory({ maxRssMiB: config.maxRssMiB, log, endProcess: wiring.endProcess ?? endProcess }) : undefined;
  const metrics = new Metrics({ isolates: () => apps.isolates(), ...(wiring.metricsText ? { render: wiring.metricsText } : {}) });
  const svc = createSvcServer({
    resolveApp: (host) => apps.resolve(host),
    releaseApp: (app) => apps.release(app),
    limits: config.limits,
    dev: config.dev,
    log,
    ready: () => apps.ready(),
    metrics,
    tenantConcurrency: config.tenantConcurrency,
    ...(config.cors !== undefined ? { cors: config.cors } : {}),
    ...(config.publicUrl !== undefined ? { publicUrl: config.publicUrl } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    svc.server.once('error', reject);
    svc.server.listen(config.port, config.host, () => resolve());
  });
  const { port } = svc.server.address() as AddressInfo;
  // In the background: /readyz answers 503 until every app has been checked.
  void apps.summarize().catch((err: unknown) => log.error(`start-up checks failed: ${(err as Error)?.message ?? err}`));
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    apps,
    svc,
    metrics,
    close() {
      guard?.stop();
      // Handlers still running when the drain's 10 s are over are stopped (their requests fail).
      closing ??= svc.shutdown(undefined, () => apps.stopHandlers()).then(() => apps.close());
      return closing;
    },
  };
}
