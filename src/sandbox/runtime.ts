// The sandboxed HandlerRuntime: compile (cached), take an isolate of the app, serve, give it back.

import { SvcError } from '../errors.ts';
import { runDefault } from '../handler/default-handler.ts';
import type { HandlerRuntime } from '../handler/runtime.ts';
import type { Exchange } from '../server/exchange.ts';
import type { App } from '../tenancy/app.ts';
import type { RuntimeFactory } from '../tenancy/tenants.ts';
import { Compiler, warmUp } from './compile.ts';
import { NotStarted, serveInSlot } from './dispatch.ts';
import { Pool } from './isolate-pool.ts';
import { resolveOptions, type SandboxOptions } from './options.ts';

export type { SandboxOptions } from './options.ts';

/** Tries for a request whose isolate went away before it ran. */
const MAX_ATTEMPTS = 3;

/**
 * What happens on isolated-vm's `onCatastrophicError` unless the caller decides otherwise: V8 lost
 * control of an isolate and its memory cannot be trusted, so the process must end (isolated-vm
 * README). SIGTERM lets the server stop accepting and finish in-flight requests; if the process is
 * still alive 10 s later it aborts, so that a supervisor restarts it either way.
 */
function endProcess(): void {
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.abort(), 10_000).unref();
}

export function createSandboxRuntime(app: App, options: SandboxOptions = {}): HandlerRuntime {
  const limits = resolveOptions(options);
  const compiler = new Compiler(app.dir);
  let broken: string | undefined;
  const pool = new Pool(limits, (message) => {
    if (broken !== undefined) return;
    broken = message;
    limits.log(`svc: FATAL: isolated-vm lost control of an isolate of app "${app.name}": ${message}; handlers are refused from now on`);
    pool.close('catastrophic');
    (options.onCatastrophicError ?? endProcess)(message);
  });
  warmUp();

  const tagOf = (ex: Exchange) => `${app.name || 'app'}/${ex.target.collection} ${ex.target.event}`;

  return {
    async serve(ex, file) {
      if (broken !== undefined) throw new SvcError('sandbox-unavailable', 'The handler sandbox failed; the server is restarting.');
      const artifact = await compiler.get(file);
      if (!artifact.ok) {
        const { text, location } = artifact.error;
        limits.log(`svc: [${tagOf(ex)}] ${location ?? artifact.rel}: ${text}`);
        throw new SvcError(
          'handler-compile-error',
          ex.dev ? `${location ?? artifact.rel}: ${text}` : `The handler ${artifact.rel} does not compile; run \`svc check\` or use development mode for the error.`,
        );
      }
      // `svc.delegate()` and nothing else: the default handler is all it would run.
      if (artifact.delegateOnly) {
        await runDefault(ex);
        return;
      }
      // A request that waited behind one that broke a limit never ran: it goes to another isolate.
      for (let attempt = 1; ; attempt++) {
        let slot;
        try {
          slot = await pool.acquire(attempt > 1);
        } catch (err) {
          limits.log(`svc: [${tagOf(ex)}] no isolate: ${String((err as Error)?.message ?? err)}`);
          throw new SvcError('sandbox-unavailable', 'The handler sandbox is not available; retry.');
        }
        try {
          await serveInSlot(slot, artifact, ex, limits, tagOf(ex));
          return;
        } catch (err) {
          if (!(err instanceof NotStarted)) throw err;
          if (attempt >= MAX_ATTEMPTS) throw new SvcError('sandbox-unavailable', 'The handler sandbox is not available; retry.');
        } finally {
          pool.release(slot);
        }
      }
    },

    async check(file) {
      const artifact = await compiler.get(file);
      return artifact.ok ? undefined : `${artifact.error.location ?? artifact.rel}: ${artifact.error.text}`;
    },

    async close() {
      pool.close();
    },
  };
}

/** The RuntimeFactory of `start()`: every app gets its own sandbox with the configured limits. */
export const sandboxRuntime: RuntimeFactory = (app, config) =>
  createSandboxRuntime(app, {
    cpuLimitMs: config.limits.cpuLimitMs,
    memoryLimitMiB: config.limits.memoryLimitMiB,
    maxOutputBytes: config.limits.maxOutputBytes,
  });
