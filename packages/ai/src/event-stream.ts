import type { AssistantMessage, AssistantMessageEvent } from "./types.js";

/**
 * An async-iterable push queue with a final result. Producers `push` events; the stream completes when an
 * event satisfies `isComplete` (its result is `extractResult(event)`) or when `end(result)` is called.
 *
 * The public type is an interface of the public members (pi-ai's), so a pi-ai stream, whose class has its
 * own private fields, is assignable to it; the constructor of the same name builds Tiller's implementation.
 */
export interface EventStream<T, R = T> extends AsyncIterable<T> {
  push(event: T): void;
  /** Ends the stream without a completing event (the result, if given, resolves `result()`). */
  end(result?: R): void;
  /** Resolves with the final result; never rejects. */
  result(): Promise<R>;
  /**
   * Tiller addition: returns and removes every event already queued, without waiting (an empty array when
   * none); iteration continues after them. Optional in the type because other streams (pi-ai's) lack it.
   */
  drainQueued?(): T[];
}

/**
 * Pushing and consuming are O(1) per event: the queue is a growing array with a read index, compacted in
 * bulk, never `shift()`ed (shift is O(n) and collapses throughput under unpaced producers).
 */
class PushStream<T, R = T> implements EventStream<T, R> {
  private queue: T[] = [];
  private head = 0;
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private finished = false;
  private readonly finalResult: Promise<R>;
  private resolveFinal!: (r: R) => void;

  constructor(
    private readonly isComplete: (event: T) => boolean,
    private readonly extractResult: (event: T) => R,
  ) {
    this.finalResult = new Promise<R>((resolve) => {
      this.resolveFinal = resolve;
    });
  }

  push(event: T): void {
    if (this.finished) return;
    if (this.isComplete(event)) {
      this.finished = true;
      this.resolveFinal(this.extractResult(event));
    }
    const waiter = this.waiting;
    if (waiter) {
      this.waiting = undefined;
      waiter({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  end(result?: R): void {
    if (!this.finished) {
      this.finished = true;
      if (result !== undefined) this.resolveFinal(result);
    }
    const waiter = this.waiting;
    if (waiter && this.head >= this.queue.length) {
      this.waiting = undefined;
      waiter({ value: undefined, done: true });
    }
  }

  private next(): Promise<IteratorResult<T>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head] as T;
      // Consumed: release it now, not at the next compaction (up to 1,024 events, each with its partial message,
      // per stream, for every session streaming at once).
      this.queue[this.head++] = undefined as T;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  // Lets a consumer take a burst of buffered deltas with one await instead of one each.
  drainQueued(): T[] {
    if (this.head >= this.queue.length) return [];
    const out = this.head === 0 ? this.queue : this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    return out;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next() };
  }

  result(): Promise<R> {
    return this.finalResult;
  }
}

/** Builds an event stream completing on the first event for which `isComplete` holds. */
export const EventStream: new <T, R = T>(
  isComplete: (event: T) => boolean,
  extractResult: (event: T) => R,
) => EventStream<T, R> = PushStream;

/** The push stream providers (and tests) fill. Completes on `done` or `error`. */
export interface AssistantMessageEventStream extends EventStream<AssistantMessageEvent, AssistantMessage> {}

class AssistantPushStream extends PushStream<AssistantMessageEvent, AssistantMessage> {
  constructor() {
    super(
      (event) => event.type === "done" || event.type === "error",
      (event) => {
        if (event.type === "done") return event.message;
        if (event.type === "error") return event.error;
        throw new Error(`not a terminal event: ${event.type}`);
      },
    );
  }
}

/** `new AssistantMessageEventStream()`: an empty stream that completes on `done` or `error`. */
export const AssistantMessageEventStream: new () => AssistantMessageEventStream = AssistantPushStream;

export function createAssistantMessageEventStream(): AssistantMessageEventStream {
  return new AssistantPushStream();
}
