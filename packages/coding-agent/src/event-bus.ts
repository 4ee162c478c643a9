/**
 * pi's extension event bus: named channels carrying any payload, for extensions that talk to each other. A
 * handler that throws is reported on stderr and does not stop the others or the emitter.
 */

export interface EventBus {
  emit(channel: string, data: unknown): void;
  /** Subscribes `handler` to `channel`; the returned function unsubscribes it. */
  on(channel: string, handler: (data: unknown) => void): () => void;
}

export interface EventBusController extends EventBus {
  /** Removes every subscription. */
  clear(): void;
}

export function createEventBus(): EventBusController {
  const channels = new Map<string, Set<(data: unknown) => void>>();
  return {
    emit(channel, data) {
      const handlers = channels.get(channel);
      if (!handlers) return;
      // A copy: a handler may unsubscribe (itself or others) while the event is delivered.
      for (const handler of [...handlers]) {
        try {
          handler(data);
        } catch (err) {
          console.error(`tiller: event bus handler for "${channel}" failed: ${(err as Error)?.message ?? err}`);
        }
      }
    },
    on(channel, handler) {
      let handlers = channels.get(channel);
      if (!handlers) {
        handlers = new Set();
        channels.set(channel, handlers);
      }
      handlers.add(handler);
      return () => {
        handlers.delete(handler);
        if (handlers.size === 0 && channels.get(channel) === handlers) channels.delete(channel);
      };
    },
    clear() {
      channels.clear();
    },
  };
}
