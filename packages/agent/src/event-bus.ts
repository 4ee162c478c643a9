/**
 * In-order event delivery to possibly-async listeners. Each event is first applied (the owner's reducer), then
 * handed to the listeners in subscription order. Synchronous listeners cost no promise at all; once a listener
 * returns a promise, that event's remaining listeners and every later event wait behind it. A listener that
 * throws or rejects is reported and skipped: delivery goes on.
 */
import type { AgentEvent, AgentEventType } from "./types.js";

export interface Subscription {
  type: AgentEventType | "*";
  // biome-ignore lint/suspicious/noExplicitAny: handlers are narrowed per type at subscribe time.
  fn: (event: any, signal: AbortSignal) => Promise<void> | void;
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | undefined)?.then === "function";
}

export class EventBus {
  #subscriptions: readonly Subscription[] = [];
  /** The delivery in progress when a listener went async; later events wait behind it. */
  #delivering: Promise<void> | undefined;

  constructor(
    private readonly reduce: (event: AgentEvent) => void,
    private readonly signal: () => AbortSignal,
    private readonly report: (error: unknown, event: AgentEvent) => void,
  ) {}

  /** Adds a subscription; returns the function removing it. */
  add(entry: Subscription): () => void {
    // Copy on write: a delivery in progress keeps the list it started with.
    this.#subscriptions = [...this.#subscriptions, entry];
    return () => {
      this.#subscriptions = this.#subscriptions.filter((s) => s !== entry);
    };
  }

  /** Removes the first subscription of `type` with handler `fn`. */
  remove(type: Subscription["type"], fn: Subscription["fn"]): void {
    const index = this.#subscriptions.findIndex((s) => s.type === type && s.fn === fn);
    if (index >= 0) this.#subscriptions = this.#subscriptions.filter((_, i) => i !== index);
  }

  /** Resolves when every event dispatched so far has reached every listener. */
  settled(): Promise<void> | undefined {
    return this.#delivering;
  }

  dispatch(event: AgentEvent): Promise<void> | undefined {
    const before = this.#delivering;
    if (before) {
      const next = before.then(() => this.#deliver(event));
      this.#track(next);
      return next;
    }
    const pending = this.#deliver(event);
    if (pending) this.#track(pending);
    return pending;
  }

  #track(pending: Promise<void>): void {
    this.#delivering = pending;
    void pending.then(() => {
      if (this.#delivering === pending) this.#delivering = undefined;
    });
  }

  #deliver(event: AgentEvent): Promise<void> | undefined {
    this.reduce(event);
    const subscriptions = this.#subscriptions;
    const signal = this.signal();
    for (let i = 0; i < subscriptions.length; i++) {
      const s = subscriptions[i] as Subscription;
      if (s.type !== "*" && s.type !== event.type) continue;
      let result: unknown;
      try {
        result = s.fn(event, signal);
      } catch (error) {
        this.#report(error, event);
        continue;
      }
      if (isThenable(result)) return this.#deliverAsync(event, subscriptions, i + 1, result, signal);
    }
    return undefined;
  }

  async #deliverAsync(
    event: AgentEvent,
    subscriptions: readonly Subscription[],
    from: number,
    first: Promise<unknown>,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      await first;
    } catch (error) {
      this.#report(error, event);
    }
    for (let i = from; i < subscriptions.length; i++) {
      const s = subscriptions[i] as Subscription;
      if (s.type !== "*" && s.type !== event.type) continue;
      try {
        const result = s.fn(event, signal);
        if (isThenable(result)) await result;
      } catch (error) {
        this.#report(error, event);
      }
    }
  }

  #report(error: unknown, event: AgentEvent): void {
    try {
      this.report(error, event);
    } catch {
      // A failing error reporter must not break the run either.
    }
  }
}
