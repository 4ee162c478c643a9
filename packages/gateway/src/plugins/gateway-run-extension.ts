/**
 * The run extension that applies the plugins' turn hooks to every gateway run, at the runner's stages (the
 * stages themselves — model hooks, workspace, tools, prompt, reply shaping — are listed by run/agent-runner.ts):
 *   resolveModel  — message_received, session_start (first run of a session id);
 *   claimTurn     — `/context` (answered with the prompt report) and before_agent_reply;
 *   onAgentEvent  — before/after_compaction (automatic and manual compactions alike);
 *   shapeReply    — the shaped final payloads, through message_sending;
 *   onRunEnd      — agent_end and message_sent.
 * It keeps no per-run state: everything a hook needs is in the run's context or the stage's output.
 */
import { formatSystemPromptReport } from "../prompt/system-prompt-builder.js";
import type { ReplyPayload, RunContext, RunExtension } from "../run/run-types.js";
import { hookContextOf } from "../run/stages/pipeline.js";
import type { HookRunner } from "./hook-runner.js";

export { BLOCK_STREAM, type ShapedRunPayload, THINKING_STREAM } from "../run/stages/reply-stage.js";

/** A message of exactly this text is answered with the run's system prompt report. */
export const CONTEXT_COMMAND = "/context";
/** Most sessions whose start is remembered (oldest forgotten first). */
const MAX_REMEMBERED_SESSIONS = 1000;

export interface GatewayRunExtensionOptions {
  hooks: HookRunner;
}

/** True for the context of a manual compaction (`sessions.compact`), which is not a turn. */
function isMaintenance(ctx: RunContext): boolean {
  return ctx.runId.startsWith("compact:");
}

export function createGatewayRunExtension(o: GatewayRunExtensionOptions): RunExtension {
  const hooks = o.hooks;
  const startedSessions = new Set<string>();

  return {
    name: "gateway-plugins",

    async resolveModel(ctx) {
      // A manual compaction borrows the run stages to open the session: no inbound message, no turn.
      if (isMaintenance(ctx)) return;
      const hookContext = hookContextOf(ctx);
      await hooks.runObserver(
        "message_received",
        { from: ctx.sessionKey, content: ctx.request.message, timestamp: ctx.request.acceptedAt },
        hookContext,
      );
      if (!startedSessions.has(ctx.session.sessionId)) {
        startedSessions.add(ctx.session.sessionId);
        if (startedSessions.size > MAX_REMEMBERED_SESSIONS) {
          startedSessions.delete(startedSessions.values().next().value as string);
        }
        await hooks.runObserver(
          "session_start",
          { sessionKey: ctx.sessionKey, sessionId: ctx.session.sessionId, resumed: ctx.session.sessionFile !== "" },
          hookContext,
        );
      }
    },

    async claimTurn(ctx, prompt) {
      if (isMaintenance(ctx)) return undefined;
      // `/context`: answer with the prompt report of this very run, without calling the model.
      if (ctx.request.message.trim() === CONTEXT_COMMAND) {
        return { reply: formatSystemPromptReport(prompt.report), pluginId: "context" };
      }
      if (!hooks.hasHooks("before_agent_reply")) return undefined;
      const claim = await hooks.runBeforeAgentReply({ prompt: ctx.request.message }, hookContextOf(ctx));
      return claim ? { reply: claim.reply, pluginId: claim.pluginId } : undefined;
    },

    onAgentEvent(ctx, event, session) {
      if (event.type === "compaction_start") {
        void hooks.runObserver(
          "before_compaction",
          { messageCount: session.messages.length, sessionFile: session.sessionFile },
          hookContextOf(ctx),
        );
      } else if (event.type === "compaction_end") {
        void hooks.runObserver(
          "after_compaction",
          {
            messageCount: session.messages.length,
            ...(event.result ? { tokenCount: event.result.tokensBefore } : {}),
            sessionFile: session.sessionFile,
          },
          hookContextOf(ctx),
        );
      }
    },

    async shapeReply(ctx, payloads) {
      if (!hooks.hasHooks("message_sending")) return payloads;
      const out: ReplyPayload[] = [];
      for (const p of payloads) {
        if (!p.text) {
          out.push(p);
          continue;
        }
        const d = await hooks.runMessageSending({ to: ctx.sessionKey, content: p.text }, hookContextOf(ctx));
        if (d.cancel) continue;
        out.push(typeof d.content === "string" ? { ...p, text: d.content } : p);
      }
      return out;
    },

    async onRunEnd(ctx, outcome) {
      if (isMaintenance(ctx)) return;
      const hookContext = hookContextOf(ctx);
      await hooks.runObserver(
        "agent_end",
        {
          messages: ctx.newMessages,
          success: outcome.status === "ok",
          ...(outcome.error ? { error: outcome.error } : {}),
          durationMs: outcome.endedAt - outcome.startedAt,
        },
        hookContext,
      );
      for (const p of ctx.payloads) {
        if (!p.text) continue;
        await hooks.runObserver(
          "message_sent",
          { to: ctx.sessionKey, content: p.text, success: outcome.status === "ok" },
          hookContext,
        );
      }
    },
  };
}
