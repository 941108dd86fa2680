// Work left for the end of the current turn of the event loop (its check phase: setImmediate), so
// that what the requests of one turn ask for is done for them together.

/** Calls queued in a turn of the event loop, made at its end (or sooner, by `run`) in the order queued. */
export class TurnBatch {
  #calls: (() => void)[] = [];

  /** Whether calls wait for the end of the turn. */
  get pending(): boolean {
    return this.#calls.length > 0;
  }

  /** Makes `call` at the end of this turn, after those queued before it. */
  add(call: () => void): void {
    if (this.#calls.push(call) === 1) setImmediate(this.run);
  }

  /** Makes the queued calls now, one at a time: one may queue another, which joins them. */
  readonly run = (): void => {
    for (let call = this.#calls.shift(); call !== undefined; call = this.#calls.shift()) call();
  };
}
