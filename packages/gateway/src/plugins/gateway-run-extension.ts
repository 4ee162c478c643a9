/**
 * The run extension that applies plugins, prompt assembly, tools and reply shaping to every gateway run, at the
 * seed's hook points:
 *   resolveModel  — message_received, session_start (first run of a session id), before_model_resolve and the
 *                   legacy before_agent_start (provider/model override);
 *   buildPrompt   — the stages of run/stages/ (workspace and sandbox, tools, prompt) around the skills snapshot
 *                   (per session id): bootstrap files + agent:bootstrap, before_prompt_build, the system prompt;
 *                   before_agent_reply
 *                   (and `/context`, answered with the prompt report);
 *   wrapModelCall — a claimed turn gets the plugin's synthetic reply instead of a model call;
 *   onEngineEvent — reply shaping of the assistant stream (think tags, directives, NO_REPLY held back), block
 *                   replies, before/after_compaction, reset of the shaper on a compaction retry;
 *   shapeReply    — the shaped final payloads, through message_sending;
 *   onRunEnd      — agent_end and message_sent.
 */
import type { AgentEvent, AgentTool } from "@tiller/agent";
import { type AssistantMessage, createAssistantMessageEventStream, createEmptyUsage } from "@tiller/ai";
import type { ModelRegistry } from "../config/models-config.js";
import type { InternalHookRegistry } from "../hooks/internal-hooks.js";
import { runModelHooks } from "../prompt/prepare-run-prompt.js";
import { type SkillsSnapshot, takeSkillsSnapshot } from "../prompt/skills-snapshot.js";
import { formatSystemPromptReport, type SystemPromptReport } from "../prompt/system-prompt-builder.js";
import type { BlockStreamingOptions, ShapedPayload } from "../reply/reply-shaper.js";
import { ReplyShaper } from "../reply/reply-shaper.js";
import type { EngineEvent } from "../run/embedded-session.js";
import type { AgentStream, ModelCall, ReplyPayload, RunContext, RunExtension } from "../run/run-types.js";
import { buildRunPrompt } from "../run/stages/prompt-stage.js";
import { buildRunTools } from "../run/stages/tools-stage.js";
import { resolveRunWorkspace } from "../run/stages/workspace-stage.js";
import type { GatewayToolDeps } from "../tools/gateway-tools.js";
import { createGatewayTools } from "../tools/gateway-tools.js";
import type { HookRunner } from "./hook-runner.js";
import type { BeforePromptBuildResult, PluginHookContext } from "./hook-types.js";
import type { PluginRegistry } from "./plugin-registry.js";

export const SHAPING_STATE_KEY = "gateway-shaping";
/** `agent` event stream of block replies (one event per block: text, mediaUrls, replyToId…). */
export const BLOCK_STREAM = "block" as AgentStream;
/** `agent` event stream of reasoning when `reasoning: "stream"` ({ text, delta }). */
export const THINKING_STREAM = "thinking" as AgentStream;
/** A message of exactly this text is answered with the run's system prompt report. */
export const CONTEXT_COMMAND = "/context";
/** Most sessions whose skills snapshot / start are remembered (oldest forgotten first). */
const MAX_REMEMBERED_SESSIONS = 1000;

/** What the extension keeps per run (in `ctx.state[SHAPING_STATE_KEY]`). */
export interface ShapingRunState {
  shaper: ReplyShaper;
  hookContext: PluginHookContext;
  report?: SystemPromptReport;
  claim?: { reply?: string; pluginId: string };
  /** Cleaned deltas produced while handling the current engine event. */
  pendingDeltas: string[];
  delivered: ReplyPayload[];
  /** What the legacy before_agent_start hook returned for the prompt stage. */
  legacyPrompt?: BeforePromptBuildResult;
}

export interface GatewayRunExtensionOptions {
  hooks: HookRunner;
  internalHooks?: InternalHookRegistry;
  plugins?: PluginRegistry;
  /** Resolves plugin model overrides (read at run time: the registry exists once the core does). */
  models?: () => ModelRegistry | undefined;
  /** Build the tool pipeline for each run (used by the tool engine). */
  tools?: boolean;
  /** Capabilities of the gateway tools (message, sessions…). */
  gatewayTools?: (ctx: RunContext) => GatewayToolDeps;
  /**
   * The MCP servers' current tools (mcp.servers), resolved once the servers have started; they take the plugin
   * tools' place in the pipeline.
   */
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
  mcpTools?: () => Promise<AgentTool<any, any>[]>;
  blockStreaming?: BlockStreamingOptions;
  reasoning?: "off" | "on" | "stream";
  enforceFinalTag?: boolean;
  log?: (line: string) => void;
}

type Obj = Record<string, unknown>;
const _isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function stateOf(ctx: RunContext): ShapingRunState | undefined {
  return ctx.state[SHAPING_STATE_KEY] as ShapingRunState | undefined;
}

/** A model call that answers with `text` without any network (a plugin-claimed turn). */
function syntheticCall(text: string, pluginId: string): ModelCall {
  return (model) => {
    const stream = createAssistantMessageEventStream();
    const message: AssistantMessage = {
      role: "assistant",
      content: [{ type: "text", text }],
      api: model.api,
      provider: "plugin",
      model: pluginId,
      usage: createEmptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
    const empty: AssistantMessage = { ...message, content: [] };
    queueMicrotask(() => {
      stream.push({ type: "start", partial: empty });
      stream.push({ type: "text_start", contentIndex: 0, partial: empty });
      stream.push({ type: "text_delta", contentIndex: 0, delta: text, partial: message });
      stream.push({ type: "text_end", contentIndex: 0, content: text, partial: message });
      stream.push({ type: "done", reason: "stop", message });
    });
    return stream;
  };
}

/** True for the context of a manual compaction (`sessions.compact`), which is not a turn. */
function isMaintenance(ctx: RunContext): boolean {
  return ctx.runId.startsWith("compact:");
}

function remember(set: Set<string>, id: string): void {
  set.add(id);
  if (set.size > MAX_REMEMBERED_SESSIONS) set.delete(set.values().next().value as string);
}

/** A run payload plus the directive fields channels use (reply threading, voice notes). */
export type ShapedRunPayload = ReplyPayload & { replyToId?: string; replyToCurrent?: boolean; audioAsVoice?: boolean };

function toRunPayload(p: ShapedPayload): ShapedRunPayload {
  return {
    text: p.text ?? "",
    mediaUrl: p.mediaUrls?.[0] ?? null,
    ...(p.mediaUrls && p.mediaUrls.length > 0 ? { mediaUrls: p.mediaUrls } : {}),
    ...(p.isError ? { isError: true } : {}),
    ...(p.replyToId ? { replyToId: p.replyToId } : {}),
    ...(p.replyToCurrent ? { replyToCurrent: true } : {}),
    ...(p.audioAsVoice ? { audioAsVoice: true } : {}),
  };
}

export function createGatewayRunExtension(o: GatewayRunExtensionOptions): RunExtension {
  const hooks = o.hooks;
  const startedSessions = new Set<string>();
  const snapshots = new Map<string, SkillsSnapshot>();
  const log = o.log ?? (() => {});

  return {
    name: "gateway-shaping",

    async resolveModel(ctx) {
      const hookContext: PluginHookContext = {
        agentId: ctx.agentId,
        sessionKey: ctx.sessionKey,
        sessionId: ctx.session.sessionId,
        runId: ctx.runId,
      };
      const st: ShapingRunState = {
        hookContext,
        pendingDeltas: [],
        delivered: [],
        shaper: new ReplyShaper({
          verbose: ctx.verbose,
          reasoning: o.reasoning ?? "off",
          enforceFinalTag: o.enforceFinalTag,
          blockStreaming: o.blockStreaming ?? false,
          onAssistantDelta: (e) => stateOf(ctx)?.pendingDeltas.push(e.delta),
          // Own streams, so clients that print `assistant` deltas never mistake blocks or reasoning for reply text.
          onBlockReply: (p) => ctx.emit(BLOCK_STREAM, { ...p }),
          onReasoningDelta: (e) => ctx.emit(THINKING_STREAM, { text: e.text, delta: e.delta }),
        }),
      };
      ctx.state[SHAPING_STATE_KEY] = st;
      // A manual compaction borrows the run stages to open the session: no inbound message, no turn to claim.
      if (isMaintenance(ctx)) return;
      await hooks.runObserver(
        "message_received",
        { from: ctx.sessionKey, content: ctx.request.message, timestamp: ctx.request.acceptedAt },
        hookContext,
      );
      if (!startedSessions.has(ctx.session.sessionId)) {
        remember(startedSessions, ctx.session.sessionId);
        await hooks.runObserver(
          "session_start",
          { sessionKey: ctx.sessionKey, sessionId: ctx.session.sessionId, resumed: ctx.session.sessionFile !== "" },
          hookContext,
        );
      }
      const m = await runModelHooks(hooks, ctx.prompt, hookContext);
      st.legacyPrompt = m.legacyPrompt;
      const models = o.models?.();
      if ((m.modelOverride || m.providerOverride) && models) {
        const ref = m.modelOverride ?? ctx.model.model.id;
        const resolved = models.resolve(
          ref,
          m.providerOverride ?? (m.modelOverride ? undefined : ctx.model.model.provider),
        );
        if (resolved) ctx.model = resolved;
        else log(`[plugins] model override ${m.providerOverride ?? ""}/${ref} is unknown; keeping ${ctx.model.ref}`);
      }
    },

    async buildPrompt(ctx) {
      const st = stateOf(ctx);
      if (!st) return;
      const cfg = ctx.config;
      // The stages of run/stages/: workspace and sandbox → skills → tools → prompt.
      const workspace = resolveRunWorkspace(ctx);
      const agentWs = workspace.agentWorkspaceDir;
      st.hookContext.workspaceDir = agentWs;

      let snapshot = snapshots.get(ctx.session.sessionId);
      if (!snapshot) {
        snapshot = takeSkillsSnapshot({ workspaceDir: agentWs, home: cfg.home, config: cfg.raw });
        snapshots.set(ctx.session.sessionId, snapshot);
        if (snapshots.size > MAX_REMEMBERED_SESSIONS) snapshots.delete(snapshots.keys().next().value as string);
      }
      ctx.skills = snapshot.skills.map((s) => ({ name: s.name, description: s.description }));

      const tools = o.tools
        ? buildRunTools(ctx, {
            workspace,
            skills: snapshot,
            gatewayTools: o.gatewayTools
              ? createGatewayTools({ ...o.gatewayTools(ctx), hooks, hookContext: st.hookContext })
              : [],
            pluginTools: [...(o.plugins?.tools ?? []), ...((await o.mcpTools?.()) ?? [])],
            hooks,
            hookContext: st.hookContext,
          })
        : [];
      const prepared = await buildRunPrompt(ctx, {
        workspace,
        skills: snapshot,
        tools,
        hooks,
        internalHooks: o.internalHooks,
        hookContext: st.hookContext,
        legacyPrompt: st.legacyPrompt,
      });
      st.report = prepared.report;

      if (isMaintenance(ctx)) return;
      if (ctx.request.message.trim() === CONTEXT_COMMAND) {
        // `/context`: answer with the prompt report of this very run, without calling the model.
        st.claim = { reply: formatSystemPromptReport(prepared.report), pluginId: "context" };
        return;
      }
      if (hooks.hasHooks("before_agent_reply")) {
        const claim = await hooks.runBeforeAgentReply({ prompt: ctx.request.message }, st.hookContext);
        if (claim) st.claim = { reply: claim.reply, pluginId: claim.pluginId };
      }
    },

    wrapModelCall(call, ctx) {
      const claim = stateOf(ctx)?.claim;
      if (!claim) return call;
      // Silence is the silent token: the shaper drops it, so nothing is sent.
      return syntheticCall(claim.reply?.trim() ? claim.reply : "NO_REPLY", claim.pluginId);
    },

    onEngineEvent(ctx, event) {
      const st = stateOf(ctx);
      if (!st) return;
      const ev = event as EngineEvent;
      if (ev.type === "compaction_start") {
        void hooks.runObserver("before_compaction", { messageCount: ctx.newMessages.length }, st.hookContext);
        return;
      }
      if (ev.type === "compaction_end") {
        if (ev.willRetry) st.shaper.resetForRetry();
        void hooks.runObserver("after_compaction", { messageCount: ctx.newMessages.length }, st.hookContext);
        return;
      }
      st.pendingDeltas.length = 0;
      st.shaper.handleEvent(ev as AgentEvent);
      if (ev.type === "message_update" && ev.assistantMessageEvent.type === "text_delta") {
        // The assistant stream carries the cleaned text (think tags, directives and a held NO_REPLY are not
        // shown). It is returned, never written into the event: other consumers read the event as the model sent it.
        return st.pendingDeltas.join("");
      }
      return undefined;
    },

    async shapeReply(ctx, payloads) {
      const st = stateOf(ctx);
      if (!st) return payloads;
      const shaped = st.shaper.finalize().map(toRunPayload);
      const out: ReplyPayload[] = [];
      for (const p of shaped) {
        if (!hooks.hasHooks("message_sending") || !p.text) {
          out.push(p);
          continue;
        }
        const d = await hooks.runMessageSending({ to: ctx.sessionKey, content: p.text }, st.hookContext);
        if (d.cancel) continue;
        out.push(typeof d.content === "string" ? { ...p, text: d.content } : p);
      }
      st.delivered = out;
      return out;
    },

    async onRunEnd(ctx, outcome) {
      const st = stateOf(ctx);
      if (!st) return;
      await hooks.runObserver(
        "agent_end",
        {
          messages: ctx.newMessages,
          success: outcome.status === "ok",
          ...(outcome.error ? { error: outcome.error } : {}),
          durationMs: outcome.endedAt - outcome.startedAt,
        },
        st.hookContext,
      );
      for (const p of st.delivered) {
        if (!p.text) continue;
        await hooks.runObserver(
          "message_sent",
          { to: ctx.sessionKey, content: p.text, success: outcome.status === "ok" },
          st.hookContext,
        );
      }
    },
  };
}
