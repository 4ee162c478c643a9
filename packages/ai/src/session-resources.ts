/**
 * Per-session resources held below the agent (a provider's open WebSocket, a cached connection): whoever
 * opens one registers a cleanup, and whoever ends a session calls `cleanupSessionResources(sessionId)` once
 * instead of knowing every provider. Without an id, every cleanup releases everything it holds.
 */

/** Releases what was held for `sessionId` (all sessions when undefined). */
export type SessionResourceCleanup = (sessionId?: string) => void;

const cleanups = new Set<SessionResourceCleanup>();

/** Registers `cleanup`; the returned function unregisters it (idempotent). */
export function registerSessionResourceCleanup(cleanup: SessionResourceCleanup): () => void {
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}

/**
 * Runs every registered cleanup for `sessionId`. One failing cleanup does not stop the others; their errors
 * are thrown together afterwards as an `AggregateError` ("Failed to cleanup session resources").
 */
export function cleanupSessionResources(sessionId?: string): void {
  const errors: unknown[] = [];
  for (const cleanup of cleanups) {
    try {
      cleanup(sessionId);
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, "Failed to cleanup session resources");
}
