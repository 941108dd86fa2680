// `svc.delegate()`: the default handler completes the response; `/event/resource/member` and
// `/event/resource/collection` afterwards read what it served. The guest sends `delegate` one-way and asks for its result with
// `delegated` only when the handler uses the runtime again (runtime/prelude.js, settleDelegate).

import { complete } from '../../exchange/complete.ts';
import { runDefault, type DelegateResult } from '../../handler/default-handler.ts';
import { REPRESENTATIONS } from '../../representation/index.ts';
import { negotiate } from '../../representation/negotiate.ts';
import { applyHead, assertOpen, checkHead, GuestError, isRecord, malformed, type Op } from '../guest.ts';

export const delegate: Op = async (call, payload) => {
  const ex = call.ex;
  if (call.delegated) throw new GuestError('svc.delegate(): delegate() already completed this response');
  assertOpen(call, 'svc.delegate()');
  if (!isRecord(payload)) throw malformed('delegate');
  applyHead(ex, checkHead(payload.head));
  if (payload.params !== undefined) {
    if (!Array.isArray(payload.params) || !payload.params.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string')) {
      throw malformed('params');
    }
    ex.params.clear();
    for (const [k, v] of payload.params as [string, string][]) ex.params.set(k, v);
  }
  if (payload.body !== undefined) {
    if (payload.body !== null && !isRecord(payload.body)) throw malformed('body');
    ex.body = payload.body === null ? undefined : payload.body;
  }
  let result: DelegateResult = {};
  call.delegated = result;
  // The default handler's errors are its response: completed here, so that delegate() returns complete.
  try {
    // The representation follows the params the handler leaves (README "Context keys"): a
    // `format_as` it set, changed or removed is negotiated again, as the request's was.
    const formatAs = ex.params.get('format_as');
    const served = formatAs === ex.query.get('format_as') ? ex : { ...ex, representation: negotiate(REPRESENTATIONS, ex.headers.accept, formatAs) };
    result = await runDefault(served, { collect: true });
    complete(ex);
  } catch (err) {
    complete(ex, err);
  }
  call.delegated = result;
  return {
    status: ex.res.status,
    headers: [...ex.res.headers],
    member: result.member !== undefined,
    collection: result.collection !== undefined || result.collectionOver !== undefined,
  };
};

/** The result of the `delegate` call sent one-way (bridge.ts keeps its reply as `call.ending`). */
export const delegated: Op = async (call) => {
  if (call.ending === undefined) throw new GuestError('svc: no delegate() is under way');
  const reply = JSON.parse(await call.ending) as { value?: unknown; error?: { type: 'Error' | 'TypeError'; message: string } };
  if (reply.error) throw new GuestError(reply.error.message, reply.error.type);
  return reply.value;
};

export const resource: Op = (call, payload) => {
  if (!isRecord(payload) || (payload.which !== 'member' && payload.which !== 'collection')) throw malformed('resource');
  const over = payload.which === 'collection' ? call.delegated?.collectionOver : undefined;
  if (over !== undefined) {
    throw new GuestError(
      `/event/resource/collection: the members listed are over the ${over} bytes the server gathers for a handler (maxResultBytes), so it holds none; ` +
        'the response has them all. Page with count (set /request/params/count before delegate()), or read them with svc.collection(…).list({ count, start })',
    );
  }
  return call.delegated?.[payload.which] ?? null;
};
