/**
 * Stage "persist": the run's token usage — summed over its assistant messages — added to the session's counters
 * (input, output, total, dollars, and the context size after the last call) and written into the outcome's meta.
 */
import type { SessionEntry, SessionStore } from "../../store/session-store.js";
import { lastAssistant, sumUsage } from "../reply-payloads.js";
import type { RunContext, RunOutcome } from "../run-types.js";

export function persistRunUsage(
  store: SessionStore,
  ctx: RunContext,
  session: SessionEntry,
  outcome: RunOutcome,
): void {
  sumUsage(ctx.newMessages, ctx.usage);
  const last = lastAssistant(ctx.newMessages);
  store.addUsage(ctx.sessionKey, {
    input: ctx.usage.input,
    output: ctx.usage.output,
    total: ctx.usage.totalTokens,
    context: last ? last.usage.input + last.usage.cacheRead + last.usage.output : session.contextTokens,
    costUsd: ctx.usage.cost.total,
  });
  outcome.result.meta.agentMeta.usage = {
    input: ctx.usage.input,
    output: ctx.usage.output,
    cacheRead: ctx.usage.cacheRead,
    cacheWrite: ctx.usage.cacheWrite,
    total: ctx.usage.totalTokens,
    costUsd: ctx.usage.cost.total,
  };
}
