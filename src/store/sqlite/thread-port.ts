// A worker thread of the store (reader threads, the writer thread) as its callers see it: requests
// sent with an id, each answered by one final reply with that id.

import { Worker } from 'node:worker_threads';
import { storeUnavailable } from '../store.ts';

export class ThreadPort<Request extends { id: number }, Reply extends { id: number }, Meta = undefined> {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: unknown) => void; meta: Meta }>();
  readonly #what: string;
  dead = false;

  /**
   * `interim` sees the replies that do not answer their request (it returns true for those); the
   * requests still unanswered when the thread ends are rejected with `unanswered(cause)`.
   */
  constructor(
    url: URL,
    what: string,
    unanswered: (cause: unknown) => unknown,
    interim: (reply: Reply, meta: Meta) => boolean = () => false,
  ) {
    this.#what = what;
    this.#worker = new Worker(url);
    this.#worker.on('message', (r: Reply) => {
      const w = this.#waiting.get(r.id);
      if (!w || interim(r, w.meta)) return;
      this.#waiting.delete(r.id);
      if (this.#waiting.size === 0) this.#worker.unref();
      w.resolve(r);
    });
    const fail = (e: unknown) => {
      this.dead = true;
      for (const w of this.#waiting.values()) w.reject(unanswered(e));
      this.#waiting.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`the ${what} exited (${code})`)));
    // An idle thread does not keep the process alive; one that owes a reply does (see send).
    // After the listeners: adding a 'message' listener refs the thread again.
    this.#worker.unref();
  }

  /** `m`, answered by the thread's final reply to it. */
  send(m: Request, meta: Meta): Promise<Reply> {
    return new Promise((resolve, reject) => {
      if (this.dead) return reject(storeUnavailable(new Error(`the ${this.#what} is gone`)));
      this.#waiting.set(m.id, { resolve, reject, meta });
      this.#worker.ref();
      this.#worker.postMessage(m);
    });
  }

  /** `m`, which has no reply. */
  post(m: unknown): void {
    if (!this.dead) this.#worker.postMessage(m);
  }

  /** Ends the thread; the requests it had not answered are rejected. */
  end(): void {
    this.dead = true;
    void this.#worker.terminate();
  }
}
