// xmllint-wasm runs (RELAX NG validation plus one XPath each), in a worker that atom-consumer.ts starts without the test runner's hooks.
//
// Why a worker of our own: xmllint-wasm starts a worker thread per run, and a worker inherits its
// parent's execArgv and NODE_OPTIONS. Under tap those --import tap's mock and process-info hooks,
// which made each run take about 800 ms instead of 100 ms. Started from this worker, which has
// neither, xmllint-wasm's workers have neither.

import { parentPort } from 'node:worker_threads';
import { validateXML, type XMLValidationResult } from 'xmllint-wasm';

export interface XmllintJob {
  readonly id: number;
  readonly xml: string;
  readonly schema: string;
  /** Evaluated in the same run; what xmllint prints for it is the result's `normalized`. */
  readonly xpath: string;
}

export type XmllintAnswer = { readonly id: number } & ({ readonly result: XMLValidationResult } | { readonly error: unknown });

parentPort!.on('message', (job: XmllintJob) => {
  validateXML({
    xml: [{ fileName: 'doc.xml', contents: job.xml }],
    schema: [{ fileName: 'atom.rng', contents: job.schema }],
    extension: 'relaxng',
    modifyArguments: (args) => [...args.slice(0, -1), '--xpath', job.xpath, args.at(-1)!],
  }).then(
    (result) => parentPort!.postMessage({ id: job.id, result } satisfies XmllintAnswer),
    (error: unknown) => parentPort!.postMessage({ id: job.id, error } satisfies XmllintAnswer),
  );
});
