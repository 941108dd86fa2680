// Every operation a handler can ask of the host, by the name the prelude calls it with. A new
// capability is one file here and one line in this table (and its guest half in runtime/prelude.js).

import { checkOutcome, type Op } from '../guest.ts';
import { rawBody } from './body.ts';
import { delegate, delegated, resource } from './delegate.ts';
import { env } from './env.ts';
import { fetch } from './fetch.ts';
import { log } from './log.ts';
import { model } from './model.ts';
import { render, send, write } from './output.ts';

/** How an async handler reports its outcome: the protocol's last call, accepted after the response is closed. */
const finish: Op = (call, payload) => {
  call.finished = checkOutcome(payload);
  return null;
};

export const OPS: Readonly<Record<string, Op>> = { write, send, render, delegate, delegated, resource, rawBody, model, log, env, fetch, finish };
