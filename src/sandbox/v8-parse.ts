// V8's parse of a handler bundle, in a worker thread: off the server's event loop.
//
// V8 checks every regular expression literal as it parses, lazily compiled functions included,
// and with the `v` or `u` flag and `i` that check computes Unicode sets through ICU: the 256 KiB a
// handler may have, as `/[\p{L}&&\p{Ll}]/vi` over and over, took V8 1.5 to 4 s to parse (never
// run). Parsed on the main thread, every tenant's requests waited that long, once per handler
// version and per handler file.

import { Worker } from 'node:worker_threads';

/** How V8 refused the text: its error as the parse threw it. */
export interface ParseFailure {
  readonly syntax: boolean;
  readonly message: string;
  readonly stack: string;
}

/** The worker's heap at most, in MiB (a parse's syntax tree is outside it). */
const MAX_HEAP_MIB = 256;

/**
 * The worker: for each message `{ code, filename }`, parses the code as a classic script named
 * `filename` (node:vm, never run) and posts null or the failure.
 */
const PARSE = `
const { parentPort } = require('node:worker_threads');
const { Script } = require('node:vm');
parentPort.on('message', ({ code, filename }) => {
  try {
    new Script(code, { filename });
    parentPort.postMessage(null);
  } catch (e) {
    parentPort.postMessage({ syntax: e instanceof SyntaxError, message: String(e?.message), stack: String(e?.stack) });
  }
});
`;

/**
 * The worker kept between parses: starting one costs ~25 ms, which a handler's first request
 * after each change would wait (the reload bench's median went from 5.6 to 32 ms). A parse that
 * finds it busy (a slow one of another app's) starts a worker of its own, which ends after it.
 */
let idle: Worker | undefined;

/**
 * V8's verdict on `code`: undefined when it parses (or when the worker could not say, out of
 * memory: the isolate that runs it will), else the failure. Not bounded in time: the parse is
 * bounded by the handler's size (maxHandlerBytes), and takes no thread but its own; a bound would
 * make a handler that parses slowly on a busy machine fail until its content changed (a compile
 * over its time is remembered so), where the isolate that runs it parses it unbounded anyway.
 */
export function parseInWorker(code: string, filename: string): Promise<ParseFailure | undefined> {
  const worker = idle ?? startWorker();
  idle = undefined;
  worker.ref();
  return new Promise((resolve) => {
    const done = (failure: ParseFailure | undefined, reusable: boolean) => {
      worker.off('message', onMessage).off('error', onEnd).off('exit', onEnd);
      resolve(failure);
      if (reusable && idle === undefined) {
        // Kept, but holding no process open: a server with nothing else to do exits.
        worker.unref();
        idle = worker;
      } else if (reusable) void worker.terminate();
    };
    const onMessage = (failure: ParseFailure | null) => done(failure ?? undefined, true);
    // Out of memory, or another failure of the worker's own: no verdict, and the worker is gone.
    const onEnd = () => done(undefined, false);
    worker.on('message', onMessage).once('error', onEnd).once('exit', onEnd);
    worker.postMessage({ code, filename });
  });
}

function startWorker(): Worker {
  const worker = new Worker(PARSE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: MAX_HEAP_MIB } });
  // A worker that fails while idle is forgotten; its error is no one's (a parse under way hears it too).
  worker.on('error', () => {});
  worker.on('exit', () => {
    if (idle === worker) idle = undefined;
  });
  return worker;
}
