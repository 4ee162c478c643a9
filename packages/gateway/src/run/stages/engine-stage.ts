/**
 * Stage "run": the engine (the coding agent's AgentSession by default) runs the agent loop on the prompt. Its
 * events go to the extensions (reply shaping may return a cleaned delta) and then to the event bridge; messages
 * steered in while the engine opened are appended to the prompt; an aborted engine gets ABORT_GRACE_MS to wind
 * down before the run stops waiting for it, so a lane cannot stay stuck.
 */
import type { EmbeddedSession } from "../embedded-session.js";
import type { EventBridge } from "../event-bridge.js";
import type { RunContext, RunExtension } from "../run-types.js";
import type { Turn } from "../turn.js";

/** How long an aborted engine gets to wind down before the runner stops waiting for it. */
export const ABORT_GRACE_MS = 5_000;

export async function runEngine(
  ctx: RunContext,
  turn: Turn,
  engine: EmbeddedSession,
  extensions: readonly RunExtension[],
  bridge: EventBridge,
): Promise<void> {
  const unsubscribe = engine.subscribe((event) => {
    let shaped: string | undefined;
    for (const ext of extensions) {
      const text = ext.onEngineEvent?.(ctx, event);
      if (text !== undefined) shaped = text;
    }
    bridge.handle(event, shaped);
  });
  for (const ext of extensions) ext.onEngineStart?.(ctx, engine);
  const steered = turn.attach(engine);
  if (steered.length > 0) ctx.prompt = [ctx.prompt, ...steered].join("\n\n");
  try {
    // A run resuming a batch decided after a restart continues the loop instead of prompting.
    const resume = ctx.request.resume;
    const started = resume
      ? engine.resumeToolCalls
        ? engine.resumeToolCalls(resume)
        : Promise.reject(new Error("this engine cannot resume tool calls"))
      : engine.prompt(ctx.prompt, ctx.request.images);
    await untilSettledOrAbandoned(started, turn.controller.signal);
  } finally {
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
