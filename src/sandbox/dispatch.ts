// One request in one isolate: run the handler under the limits, then turn its outcome into the response.
//
// The three handler forms (README "Handler scripts") are told apart inside the isolate (runtime/prelude.js,
// `dispatch`), where the module's namespace lives; here the outcome becomes HTTP: 405 with
// `Allow` for an event the handler does not implement, 500 for a handler error, 503 for a
// limit, and the 204 default for a handler that neither wrote, rendered nor delegated.

import { SvcError } from '../errors.ts';
import { complete } from '../exchange/complete.ts';
import type { Exchange } from '../exchange/exchange.ts';
import { allowHeader, isMemberEvent } from '../routing/events.ts';
import { requestJson } from './bridge.ts';
import { compileError, locate, type Artifact } from './compile.ts';
import { applyHead, checkOutcome, GuestError, OUTCOME_DATA, parseGuestJson, type Call, type Outcome } from './guest.ts';
import type { Slot } from './isolate-pool.ts';

type Compiled = Extract<Artifact, { ok: true }>;

/** The request never ran: its isolate went away while it waited in the queue. It may be retried elsewhere. */
export class NotStarted extends Error {}

let nextToken = 1;

/** Serves `ex` with the handler `artifact` in `slot`; writes the response or throws the error that ends it (exchange/complete.ts). */
export async function serveInSlot(slot: Slot, artifact: Compiled, ex: Exchange): Promise<void> {
  let unran = true;
  /** The request's code is done in the isolate (or never ran): the pool may give the thread another. */
  const ran = () => {
    if (unran) slot.unran--;
    unran = false;
  };
  try {
    await serve(slot, artifact, ex, ran);
  } finally {
    ran();
  }
}

async function serve(slot: Slot, artifact: Compiled, ex: Exchange, ran: () => void): Promise<void> {
  let id: number;
  try {
    id = await slot.install(artifact);
  } catch (err) {
    if (slot.disposed) throw new NotStarted();
    // esbuild accepted it but V8 did not (e.g. sloppy-mode-only syntax): a compile error too.
    throw compileError(ex, artifact.rel, String((err as Error)?.message ?? err));
  }

  const call: Call = { token: nextToken++, ex, started: false, closed: false, hostMs: 0 };
  slot.calls.set(call.token, call);
  let returned: unknown;
  try {
    returned = await slot.run(id, requestJson(ex), call);
  } catch (err) {
    call.closed = true;
    await call.ending;
    // Results reach the host in order, so a request that ran has said so before its failure arrives.
    if (!call.started && slot.disposed) throw new NotStarted();
    if (!slot.disposed && call.breach === undefined) {
      // The isolate is intact and no limit was broken: this is an error of code in the isolate,
      // which isolated-vm reports at the end of the task, typically a promise rejection the
      // handler left unhandled (`Promise.reject(x)` without a catch). It is the handler's error
      // (500), not a sandbox fault: replacing the isolate for it would let any request make the
      // host build a new isolate (~10 times the host CPU of a request) for free.
      const message = String((err as Error)?.message ?? err).slice(0, 2000);
      const stack = typeof (err as Error)?.stack === 'string' ? (err as Error).stack : undefined;
      finish(ex, { error: { name: 'Error', message: `unhandled promise rejection: ${message}`, ...(stack ? { stack } : {}) } }, artifact);
      return;
    }
    // Even when the response was complete before the fault, the isolate is replaced all the same.
    const fault = faultError(slot, call, err, ex);
    if (ex.res.committed && !ex.res.ended) ex.log.warn(`${fault.message} after output was committed: connection closed`);
    throw fault;
  } finally {
    ran();
    slot.finished(call);
  }
  call.closed = true;
  await call.oneWay;

  let outcome: Outcome;
  if (returned === '"pending"') {
    outcome = call.finished ?? {
      // Nothing outside the isolate can resume it (no timers, every runtime call is synchronous).
      error: { name: 'Error', message: 'the handler returned a promise that never settles' },
    };
  } else {
    try {
      // Bounded as a runtime call's data is: a handler that neither wrote nor delegated could
      // otherwise have the host parse and send headers as large as its isolate could hold.
      outcome = checkOutcome(parseGuestJson(String(returned), OUTCOME_DATA));
    } catch (err) {
      outcome = { error: err instanceof GuestError ? { name: err.type, message: err.message } : { name: 'Error', message: 'the handler runtime returned a malformed outcome' } };
    }
  }
  // A delegate() or echo() the host refused after the handler went on without waiting for it.
  if (!outcome.error && call.refused) outcome = { ...outcome, error: { name: call.refused.type, message: call.refused.message } };
  finish(ex, outcome, artifact);
}

/** The response of a handler that ran to its end. */
function finish(ex: Exchange, outcome: Outcome, artifact: Compiled): void {
  const res = ex.res;
  if (outcome.error) {
    const { name, message, stack } = outcome.error;
    const at = locate(artifact, stack);
    ex.log.warn(`handler threw ${name}: ${message}${at ? ` (${at})` : ''}`);
    // After delegate() or render() the response is complete; after echo() it is cut (complete()).
    throw new SvcError('handler-error', ex.dev ? `${name}: ${message}${at ? ` (${at})` : ''}` : 'The handler failed; the server log has the details.');
  }
  if (outcome.notAllowed) {
    // Allow lists the methods of the handler's events on this kind of target (collection or member).
    const member = isMemberEvent(ex.target.event);
    const served = outcome.notAllowed.filter((e) => isMemberEvent(e) === member);
    throw new SvcError('method-not-allowed', `The handler of ${ex.target.collection} does not implement ${ex.target.event} (${ex.method}).`, {
      headers: { allow: allowHeader(served) },
    });
  }
  if (!res.committed) {
    applyHead(ex, outcome.head);
    // Neither written, rendered nor delegated: 204 unless the handler chose a status (README "Handler scripts").
    if (outcome.head?.status === undefined) res.setStatus(204);
  }
  complete(ex);
}

/** The error for a run that ended because the isolate went away. */
function faultError(slot: Slot, call: Call, err: unknown, ex: Exchange): SvcError {
  const { limits, log } = ex;
  const message = String((err as Error)?.message ?? err);
  const fault = call.breach ?? slot.fault ?? (/memory limit/i.test(message) ? 'memory' : undefined);
  slot.dispose(fault ?? 'closed'); // an unexpected failure: do not reuse it; a fault the pool should know of
  log.warn(`isolate replaced (${fault ?? message})`);
  switch (fault) {
    case 'cpu':
      return new SvcError('handler-cpu-limit', `The handler used more than ${limits.cpuLimitMs} ms of CPU time.`);
    case 'wall':
      return new SvcError('handler-time-limit', `The handler ran for more than ${limits.wallLimitMs} ms.`);
    case 'request':
      return new SvcError('handler-time-limit', `The handler kept the request busy for more than ${limits.requestLimitMs} ms.`);
    case 'memory':
      return new SvcError('handler-memory-limit', `The handler used more than the isolate's ${limits.memoryLimitMiB} MiB of memory.`);
    case 'process-memory':
      return new SvcError('handler-memory-limit', 'The server process passed its memory bound (--max-rss) while this handler ran; the handlers running then were stopped.');
    default:
      return new SvcError('sandbox-unavailable', 'The handler sandbox is not available; retry.');
  }
}
