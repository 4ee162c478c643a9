/** Delivering session events to the session's listeners (AgentSession's `subscribe`). */
import type { AgentSessionEvent, AgentSessionEventListener } from "./events.js";

/**
 * Calls each listener with `event`; a listener that throws is logged and the others still run. Returns the
 * promise of the async listeners, undefined when none is async.
 */
export function dispatchSessionEvent(
  listeners: readonly AgentSessionEventListener[],
  event: AgentSessionEvent,
): Promise<void> | undefined {
  let pending: Promise<unknown>[] | undefined;
  for (const l of listeners) {
    try {
      const r = l(event);
      if (r && typeof (r as Promise<void>).then === "function") (pending ??= []).push(r as Promise<void>);
    } catch (err) {
      console.error(`[tiller] a session listener failed on ${event.type}:`, err);
    }
  }
  return pending ? Promise.all(pending).then(() => undefined) : undefined;
}

/**
 * `pending` as a promise that never rejects: a listener's failure is logged, as a synchronous throw is. What
 * `steer`, `followUp` and `setModel` return, so a caller that does not await them leaves nothing unhandled.
 */
export function settled(pending: Promise<unknown> | undefined, what: string): Promise<void> {
  if (!pending) return Promise.resolve();
  return pending.then(
    () => undefined,
    (err: unknown) => console.error(`[tiller] a session listener failed on ${what}:`, err),
  );
}
