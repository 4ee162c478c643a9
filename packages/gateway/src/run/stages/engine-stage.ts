/**
 * Stage "run": the session (the coding agent's AgentSession by default) runs the agent loop on the prompt. Each
 * of its events goes, as the session emitted it, to `onEvent` (the runner's: reply shaping, the extensions, then
 * the event bridge), after the message it ends is recorded in `ctx.newMessages`. The run's signal is the one
 * abort path: it aborts the session. An aborted session gets ABORT_GRACE_MS to wind down before the run stops
 * waiting for it, so a lane cannot stay stuck.
 */
import type { AgentSessionEvent, EmbeddedSession } from "../embedded-session.js";
import type { RunContext } from "../run-types.js";
import type { Turn } from "../turn.js";

/** How long an aborted engine gets to wind down before the runner stops waiting for it. */
export const ABORT_GRACE_MS = 5_000;

export async function runEngine(
  ctx: RunContext,
  turn: Turn,
  session: EmbeddedSession,
  onEvent: (event: AgentSessionEvent) => void,
): Promise<void> {
  const unsubscribe = session.subscribe(
    (event) => {
      if (event.type === "message_end") ctx.newMessages.push(event.message);
      onEvent(event);
    },
    { tillerEvents: true },
  );
  const signal = turn.controller.signal;
  const onAbort = (): void => void session.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  turn.attach(session);
  try {
    const images = ctx.request.images;
    // A run resuming a batch decided after a restart continues the loop instead of prompting.
    const resume = ctx.request.resume;
    const started = resume
      ? session.resumeToolCalls
        ? session.resumeToolCalls(resume)
        : Promise.reject(new Error("this engine cannot resume tool calls"))
      : session.prompt(ctx.prompt, images?.length ? { images } : {});
    await untilSettledOrAbandoned(started, signal);
  } finally {
    signal.removeEventListener("abort", onAbort);
    turn.detach();
    unsubscribe();
  }
}

/** Waits for `p`; once `signal` aborts, waits at most ABORT_GRACE_MS more. */
function untilSettledOrAbandoned(p: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let grace: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      grace = setTimeout(resolve, ABORT_GRACE_MS);
      grace.unref();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      () => {
        if (grace) clearTimeout(grace);
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      (err: unknown) => {
        if (grace) clearTimeout(grace);
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
