// Start-up: configuration in, a listening server out; the one place the log sink and the handler runtime are wired.

import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { Logger, textSink, type LogSink } from './exchange/log.ts';
import type { RuntimeFactory } from './exchange/runtime.ts';
import { sandboxRuntime } from './sandbox/runtime.ts';
import { createSvcServer, type SvcServer } from './server/server.ts';
import { Apps } from './tenancy/tenants.ts';

export interface Running {
  /** `http://host:port` the server listens on. */
  readonly url: string;
  readonly port: number;
  readonly apps: Apps;
  readonly svc: SvcServer;
  /** Graceful stop: in-flight requests finish, then apps and stores close. */
  close(): Promise<void>;
}

export interface Wiring {
  /** The handler runtime of every app. Default: the sandbox (src/sandbox). */
  runtime?: RuntimeFactory;
  /** Where every log record goes. Default: text lines on standard error. */
  log?: LogSink;
}

export async function start(config: Config, wiring: Wiring = {}): Promise<Running> {
  const log = new Logger(wiring.log ?? textSink());
  const apps = new Apps(config, wiring.runtime ?? sandboxRuntime, log);
  await apps.start();
  const svc = createSvcServer({
    resolveApp: (host) => apps.resolve(host),
    limits: config.limits,
    dev: config.dev,
    log,
    ...(config.publicUrl !== undefined ? { publicUrl: config.publicUrl } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    svc.server.once('error', reject);
    svc.server.listen(config.port, config.host, () => resolve());
  });
  const { port } = svc.server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    apps,
    svc,
    close() {
      closing ??= svc.shutdown().then(() => apps.close());
      return closing;
    },
  };
}
