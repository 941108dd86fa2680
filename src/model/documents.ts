// Documents built from every model of an app (`GET /resources/types`, the OpenAPI document): their
// bound, and building them in slices of work, so that the requests of other tenants run meanwhile.

/**
 * Bytes of the JSON of `GET /resources/types`, and of the OpenAPI document, 16 MiB: the type
 * metadata of 1,000 models of 5 fields takes 0.6 MB, their OpenAPI document 14 MB. Model files hold
 * up to 1 MiB each, so without a bound these documents could be gigabytes, built and kept in
 * memory for one request. Over it the request is 500 `models-over-limit`.
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/**
 * Milliseconds of work a request that reads every model does on the event loop before it lets
 * the other requests waiting there run (reading 1,000 model files of up to 1 MiB takes seconds).
 */
const SLICE_MS = 5;

/** The work of one request in slices: `pause()` lets other requests run once SLICE_MS have passed since the last. */
export class Slices {
  #start = performance.now();

  async pause(): Promise<void> {
    if (performance.now() - this.#start <= SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.#start = performance.now();
  }
}

/**
 * JSON text gathered in pieces as UTF-8 bytes, each encoded as it comes (no one step encodes a
 * whole document on the event loop; a response sends the bytes as they are), within
 * MAX_DOCUMENT_BYTES: `over` is called, and throws, when a piece would take the text past it.
 */
export class JsonParts {
  readonly #parts: Buffer[] = [];
  #bytes = 0;
  readonly #over: () => never;

  constructor(over: () => never) {
    this.#over = over;
  }

  /** Adds JSON text, or the pieces gathered in `other`. */
  add(text: string | JsonParts): void {
    const parts = typeof text === 'string' ? [Buffer.from(text)] : text.#parts;
    const bytes = typeof text === 'string' ? parts[0]!.length : text.#bytes;
    if (this.#bytes + bytes > MAX_DOCUMENT_BYTES) this.#over();
    this.#bytes += bytes;
    for (const part of parts) this.#parts.push(part);
  }

  bytes(): Buffer {
    return Buffer.concat(this.#parts, this.#bytes);
  }
}
