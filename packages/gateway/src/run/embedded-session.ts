/**
 * The session a run drives: the coding agent's `AgentSession` itself (tools/tool-engine.ts opens it), or
 * another engine with the same members (the benchmarks' minimal one) plugged in through `SessionFactory`. Its
 * events are the AgentSession's own, all of them (`AgentSessionEvent` here: agent events, compaction, queue
 * updates, and Tiller's approvals and `model_changed`, which a run asks for with `{ tillerEvents: true }`): the
 * runner hands them to reply shaping, the extensions and the event bridge as they are, with no translation in
 * between.
 */
import type { AgentSession, TillerEventsOption, TillerSessionEvent } from "@tiller/coding-agent";
import type { RunContext } from "./run-types.js";

/** Every event a run's session emits: pi's session events plus Tiller's (the approvals the hub relays). */
export type AgentSessionEvent = TillerSessionEvent;

/**
 * The members of AgentSession a run uses. Contract: `prompt` runs the agent loop (retries, compaction) and
 * resolves when it is over; `steer` puts a message into the agent's own queue, taken at the loop's next
 * boundary (the first model request when the loop has not started yet); `clearQueue` takes back what the loop
 * never delivered; `abort` ends the loop; `compact` (optional) summarizes older history and rejects when there
 * is nothing to compact; `dispose` releases the transcript's write lock and is idempotent.
 */
export type EmbeddedSession = Pick<
  AgentSession,
  "sessionId" | "sessionFile" | "messages" | "isStreaming" | "prompt" | "steer" | "clearQueue" | "abort" | "dispose"
> & {
  /** Every event, Tiller's approvals included (`AgentSession.subscribe`'s second form); returns the unsubscribe. */
  subscribe(listener: (event: AgentSessionEvent) => void, options: TillerEventsOption): () => void;
} & Partial<Pick<AgentSession, "compact" | "resolveApproval" | "resumeToolCalls">>;

/** Opens the session for a run. The write lock is taken here and held until `dispose()`. */
export type SessionFactory = (ctx: RunContext) => Promise<EmbeddedSession>;
