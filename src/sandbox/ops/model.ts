// The model API: `svc.collection(name).list/count/retrieve/create/update/delete`, on this app's store.

import { SvcError } from '../../errors.ts';
import { countMembers, createMember, deleteMember, getMember, listMembers, ResultTooLarge, updateMember } from '../../handler/members.ts';
import { GuestError, isRecord, malformed, type Op } from '../guest.ts';

export const model: Op = async (call, payload) => {
  if (!isRecord(payload) || typeof payload.collection !== 'string' || typeof payload.method !== 'string' || !Array.isArray(payload.args)) throw malformed('model');
  const { collection: name, method, args } = payload as { collection: string; method: string; args: unknown[] };
  const fn = `svc.collection(${JSON.stringify(name)})${method === 'open' ? '' : `.${method}()`}`;
  const { store, models, limits, log } = call.ex;
  // Store work runs on the server's event loop, not in the isolate: it has a budget of its own.
  if ((call.modelMs ?? 0) >= limits.modelLimitMs) {
    throw new GuestError(`${fn}: this request used its ${limits.modelLimitMs} ms of model-API time; do less store work per request`);
  }
  const started = performance.now();
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
          return await listMembers(store, model, query(0), limits.maxResultBytes);
        } catch (err) {
          if (!(err instanceof ResultTooLarge)) throw err;
          throw new GuestError(`${fn}: ${err.message}; ask for fewer with count, and page with start`);
        }
      case 'count':
        return await countMembers(store, model, query(0));
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
    if (err instanceof SvcError) throw new GuestError(`${fn}: ${err.message}`);
    log.error(`${fn} failed: ${(err as Error)?.stack ?? String(err)}`);
    throw new GuestError(`${fn}: the store failed`);
  } finally {
    call.modelMs = (call.modelMs ?? 0) + (performance.now() - started);
  }
};
