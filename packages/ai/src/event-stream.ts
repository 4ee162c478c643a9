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
 * Pushing and consuming are O(1) per event: the queue is a ring of slots that doubles when full and is otherwise
 * reused for the stream's life, never `shift()`ed (O(n)) and never rebuilt per burst (a fresh array grown by
 * `push` at every burst of deltas, in every session streaming at once, fills the old generation).
 */
class PushStream<T, R = T> implements EventStream<T, R> {
  private ring: (T | undefined)[] = new Array<T | undefined>(16);
  /** Index of the oldest queued event in `ring`, and how many are queued. */
  private head = 0;
  private count = 0;
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
      this.enqueue(event);
    }
  }

  end(result?: R): void {
    if (!this.finished) {
      this.finished = true;
      if (result !== undefined) this.resolveFinal(result);
    }
    const waiter = this.waiting;
    if (waiter && this.count === 0) {
      this.waiting = undefined;
      waiter({ value: undefined, done: true });
    }
  }

  private enqueue(event: T): void {
    const size = this.ring.length;
    if (this.count === size) {
      // Full: double, oldest first.
      const grown = new Array<T | undefined>(size * 2);
      for (let i = 0; i < size; i++) grown[i] = this.ring[(this.head + i) % size];
      this.ring = grown;
      this.head = 0;
    }
    this.ring[(this.head + this.count) % this.ring.length] = event;
    this.count++;
  }

  /** The oldest queued event, released from the queue (a reader that keeps up keeps no backlog alive). */
  private dequeue(): T {
    const value = this.ring[this.head] as T;
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.ring.length;
    this.count--;
    return value;
  }

  private next(): Promise<IteratorResult<T>> {
    if (this.count > 0) return Promise.resolve({ value: this.dequeue(), done: false });
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  // Lets a consumer take a burst of buffered deltas with one await instead of one each.
  drainQueued(): T[] {
    if (this.count === 0) return [];
    const out = new Array<T>(this.count);
    for (let i = 0; i < out.length; i++) out[i] = this.dequeue();
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
