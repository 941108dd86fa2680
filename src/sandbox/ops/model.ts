// The model API: `svc.collection(name).list/count/retrieve/create/update/delete`, on this app's store.

import { SvcError } from '../../errors.ts';
import { countMembers, createMember, deleteMember, getMember, listMembers, ResultTooLarge, updateMember } from '../../handler/members.ts';
import type { ReadOptions } from '../../store/store.ts';
import { GuestError, isRecord, malformed, type Op } from '../guest.ts';

export const model: Op = async (call, payload) => {
  if (!isRecord(payload) || typeof payload.collection !== 'string' || typeof payload.method !== 'string' || !Array.isArray(payload.args)) throw malformed('model');
  const { collection: name, method, args } = payload as { collection: string; method: string; args: unknown[] };
  const fn = `svc.collection(${JSON.stringify(name)})${method === 'open' ? '' : `.${method}()`}`;
  const { store, models, limits, log } = call.ex;
  // Store work runs in the server (on its event loop, or a reader thread), not in the isolate: it has a budget of its own.
  if ((call.modelMs ?? 0) >= limits.modelLimitMs) {
    throw new GuestError(`${fn}: this request used its ${limits.modelLimitMs} ms of model-API time; do less store work per request`);
  }
  const started = performance.now();
  // What is left of the budget bounds the call in progress too: the store stops a read that
  // would run past it (store-time-limit), rather than the budget being checked only between calls.
  const read: ReadOptions = { timeMs: Math.min(limits.storeLimitMs, limits.modelLimitMs - (call.modelMs ?? 0)) };
  try {
    const model = models.get(name);
    if (!model) throw new GuestError(`${fn}: this app declares no model "${name}"`);
    const query = (i: number) => {
      if (!isRecord(args[i])) throw malformed('query');
      return args[i] as Record<string, unknown>;
    };
    const member = (i: number) => {
      if (!isRecord(args[i])) throw malformed('member');
      return args[i] as Record<string, unknown>;
    };
    switch (method) {
      case 'open':
        return null;
      case 'list':
        try {
          return await listMembers(store, model, query(0), limits.maxResultBytes, read);
        } catch (err) {
          if (!(err instanceof ResultTooLarge)) throw err;
          throw new GuestError(`${fn}: ${err.message}; ask for fewer with count, and page with start`);
        }
      case 'count':
        return await countMembers(store, model, query(0), read);
      case 'retrieve':
        return await getMember(store, model, args[0]);
      case 'create':
        return await createMember(store, model, member(0));
      case 'update':
        try {
          return await updateMember(store, model, args[0], member(1));
        } catch (err) {
          if (err instanceof SvcError && err.code === 'member-not-found') return null;
          throw err;
        }
      case 'delete':
        return await deleteMember(store, model, args[0]);
      default:
        throw malformed('model method');
    }
  } catch (err) {
    if (err instanceof GuestError) throw err;
    if (err instanceof SvcError && err.code === 'store-time-limit') {
      throw new GuestError(`${fn}: the store ran out of time for it (${Math.round(read.timeMs!)} ms left of this request's ${limits.modelLimitMs} ms of model-API time, at most ${limits.storeLimitMs} ms per query); narrow the query with a condition that reads an index (exact, in, startswith, a range)`);
    }
    if (err instanceof SvcError) throw new GuestError(`${fn}: ${err.message}`);
    log.error(`${fn} failed: ${(err as Error)?.stack ?? String(err)}`);
    throw new GuestError(`${fn}: the store failed`);
  } finally {
    call.modelMs = (call.modelMs ?? 0) + (performance.now() - started);
  }
};
