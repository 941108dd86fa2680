// Output: `echo()` and `render()`. Unbuffered: the first write commits status and headers.

import { problemBody, statusTitle, type Problem } from '../../errors.ts';
import { applyHead, assertOpen, checkHead, isRecord, malformed, outputCap, type Op } from '../guest.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

export const write: Op = async (call, payload, text) => {
  assertOpen(call, 'echo');
  const head = checkHead(payload === '' ? undefined : payload);
  outputCap(call, Buffer.byteLength(text));
  applyHead(call.ex, head);
  await call.ex.res.write(text);
  return null;
};

/** A one-way write: the handler does not wait for it (see WAIT_EVERY in the prelude). */
export const send: Op = (call, payload, text) => write(call, payload, text);

export const render: Op = async (call, payload, text) => {
  const ex = call.ex;
  const res = ex.res;
  assertOpen(call, 'render()');
  if (!isRecord(payload) || (payload.view !== 'JSON' && payload.view !== 'error')) throw malformed('render');
  if (payload.message !== undefined && typeof payload.message !== 'string') throw malformed('message');
  const head = checkHead(payload.head);
  // /request/status, sent apart from the head: after echo() there is no head, and the problem
  // appended still carries the handler's status (README "Responses").
  const wanted = payload.status;
  if (wanted !== undefined && (!Number.isInteger(wanted) || (wanted as number) < 200 || (wanted as number) > 599)) throw malformed('status');
  let body = text;
  if (payload.view === 'error') {
    const status = head?.status ?? (wanted as number | undefined) ?? 500;
    const problem: Problem = {
      type: 'about:blank',
      title: statusTitle(status),
      status,
      detail: (payload.message as string | undefined) ?? statusTitle(status),
      code: 'handler-reported',
    };
    body = problemBody(problem, ex.id);
  }
  outputCap(call, Buffer.byteLength(body));
  if (!res.committed) {
    applyHead(ex, head);
    if (payload.view === 'error') res.setStatus(head?.status ?? 500);
    res.setHeader('content-type', payload.view === 'error' ? 'application/problem+json' : JSON_TYPE);
    res.end(body);
  } else {
    await res.write(body);
    res.end();
  }
  return null;
};
