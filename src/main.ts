// Start-up: configuration in, a listening server out.

import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { createSvcServer, type SvcServer } from './server/server.ts';
import { sandboxRuntime } from './sandbox/runtime.ts';
import { Apps, type RuntimeFactory } from './tenancy/tenants.ts';

export interface Running {
  /** `http://host:port` the server listens on. */
  readonly url: string;
  readonly port: number;
  readonly apps: Apps;
  readonly svc: SvcServer;
  /** Graceful stop: in-flight requests finish, then apps and stores close. */
  close(): Promise<void>;
}

/** The handler runtime of every app: the sandbox (see src/sandbox). */
export const defaultRuntime: RuntimeFactory = sandboxRuntime;

export async function start(config: Config, runtime: RuntimeFactory = defaultRuntime): Promise<Running> {
  const apps = new Apps(config, runtime);
  await apps.start();
  const svc = createSvcServer({
    resolveApp: (host) => apps.resolve(host),
    limits: config.limits,
    dev: config.dev,
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
