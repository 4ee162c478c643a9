/**
 * Stage "outcome": how the run ended — ok, error, timeout or aborted — with its payloads and meta, from the turn's
 * abort reason, a failure of an earlier stage and the last assistant message.
 */
import { lastAssistant } from "../reply-payloads.js";
import type { ReplyPayload, RunContext, RunOutcome } from "../run-types.js";
import type { Turn } from "../turn.js";

export function runOutcome(
  ctx: RunContext,
  turn: Turn,
  startedAt: number,
  payloads: ReplyPayload[],
  failure: string | undefined,
): RunOutcome {
  const endedAt = Date.now();
  const last = lastAssistant(ctx.newMessages);
  ctx.abortReason = turn.abortReason;
  let status: RunOutcome["status"] = "ok";
  let summary = "completed";
  let error: string | undefined;
  if (turn.abortReason === "timeout") {
    status = "timeout";
    summary = "timeout";
    error = `run timed out after ${Math.round(ctx.timeoutMs / 1000)}s`;
  } else if (turn.abortReason) {
    status = "aborted";
    summary = "aborted";
    error = turn.abortReason === "shutdown" ? "gateway shutting down" : "aborted";
  } else if (failure) {
    status = "error";
    summary = failure;
    error = failure;
    payloads = [...payloads, { text: `⚠️ ${failure}`, isError: true, mediaUrl: null }];
  } else if (last?.stopReason === "error") {
    status = "error";
    error = last.errorMessage ?? "model error";
    summary = error;
  }
  return {
    status,
    summary,
    error,
    startedAt,
    endedAt,
    result: {
      payloads,
      meta: {
        durationMs: endedAt - startedAt,
        agentMeta: {
          sessionId: ctx.session.sessionId,
          provider: ctx.model?.model.provider ?? "",
          model: ctx.model?.model.id ?? "",
        },
        ...(last ? { stopReason: last.stopReason } : {}),
        ...(turn.abortReason ? { aborted: true } : {}),
      },
    },
  };
}
