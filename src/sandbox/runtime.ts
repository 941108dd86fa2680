// The sandboxed HandlerRuntime: compile (cached), take an isolate of the app, serve, give it back.

import { SvcError } from '../errors.ts';
import type { HandlerRuntime, RuntimeFactory, RuntimeScope } from '../exchange/runtime.ts';
import { DEFAULT_HANDLER_EVENTS, runDefault } from '../handler/default-handler.ts';
import { compileError, Compiler, warmUp } from './compile.ts';
import { NotStarted, serveInSlot } from './dispatch.ts';
import { Pool } from './isolate-pool.ts';

/** Tries for a request whose isolate went away before it ran. */
const MAX_ATTEMPTS = 3;

export interface SandboxOptions {
  /**
   * Called when isolated-vm reports a catastrophic error (V8 lost control of an isolate). Default:
   * log it, refuse further handler work (503), send the process SIGTERM so that it shuts down
   * gracefully, and abort it if it is still alive 10 s later. See the README, "Isolation and limits".
   */
  readonly onCatastrophicError?: (message: string) => void;
}

/**
 * What happens on isolated-vm's `onCatastrophicError` unless the caller decides otherwise: V8 lost
 * control of an isolate and its memory cannot be trusted, so the process must end (isolated-vm
 * README). SIGTERM lets the server stop accepting and finish in-flight requests; if the process is
 * still alive 10 s later it aborts, so that a supervisor restarts it either way.
 */
export function endProcess(): void {
  // A failure's exit code, after the graceful stop SIGTERM starts: a supervisor that restarts on
  // failure (systemd's Restart=on-failure, Docker's on-failure) does not restart a process that exits 0.
  process.exitCode = 1;
  process.kill(process.pid, 'SIGTERM');
  // Only if the graceful stop itself hangs: after its drain (10 s, server.ts `shutdown`) and 5 s to
  // close the stores. At 10 s it raced the drain, and a busy process ended in SIGABRT (a core dump)
  // instead of exit code 1.
  setTimeout(() => process.abort(), 15_000).unref();
}

export function createSandboxRuntime(scope: RuntimeScope, options: SandboxOptions = {}): HandlerRuntime {
  const { limits, log } = scope;
  const compiler = new Compiler(scope.dir, limits);
  let broken: string | undefined;
  const pool = new Pool(scope.name === '' ? 'app' : scope.name, limits, (message) => {
    if (broken !== undefined) return;
    broken = message;
    log.error(`FATAL: isolated-vm lost control of an isolate of app "${scope.name}": ${message}; handlers are refused from now on`);
    pool.close('catastrophic');
    (options.onCatastrophicError ?? endProcess)(message);
  });
  warmUp();

  return {
    async serve(ex) {
      if (broken !== undefined) throw new SvcError('sandbox-unavailable', 'The handler sandbox failed; the server is restarting.');
      const artifact = await compiler.get(ex.handler);
      if (!artifact.ok) throw compileError(ex, artifact.rel, artifact.error.text, artifact.error.location, artifact.error.bound);
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
          ex.log.error(`no isolate: ${String((err as Error)?.message ?? err)}`);
          throw new SvcError('sandbox-unavailable', 'The handler sandbox is not available; retry.');
        }
        try {
          await serveInSlot(slot, artifact, ex);
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

    async events(file, exact) {
      const artifact = await compiler.get(file);
      if (!artifact.ok) return undefined;
      return artifact.delegateOnly ? DEFAULT_HANDLER_EVENTS : exact ? undefined : artifact.events;
    },

    isolates() {
      return pool.size;
    },

    async close() {
      pool.close();
    },
  };
}

/** The RuntimeFactory of `start()`: every app gets its own sandbox with the configured limits. */
export const sandboxRuntime: RuntimeFactory = (scope) => createSandboxRuntime(scope);
