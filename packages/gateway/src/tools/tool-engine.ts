/**
 * The gateway's engine: the coding agent's AgentSession (agent loop with tools, retries, compaction) over the
 * session's JSONL transcript, driven by the run's model call, handed to the runner as it is — the runner
 * subscribes to its events, steers and aborts it directly. The run's tools come from the tools stage
 * (`ctx.tools`). Tool results pass through the synchronous `tool_result_persist` hook before they are written
 * to the transcript.
 */
import { mkdirSync } from "node:fs";
import type { AgentMessage, ThinkingLevel } from "@tiller/agent";
import type { ToolResultMessage } from "@tiller/ai";
import {
  createAgentSession,
  type ModelRegistry as ModelCatalog,
  SessionManager,
  SettingsManager,
} from "@tiller/coding-agent";
import { rewindToBatch } from "../approvals/resume-branch.js";
import type { HookRunner } from "../plugins/hook-runner.js";
import type { SessionFactory } from "../run/embedded-session.js";
import type { RunContext } from "../run/run-types.js";

export interface ToolEngineOptions {
  /** The directory of an agent's transcripts (the gateway session store's `transcriptDir`). */
  transcriptDir: (agentId: string) => string;
  /** `tool_result_persist` hooks (the plugins'). */
  hooks?: HookRunner;
  /** The gateway's model catalog (its one reader of models.json), shared by every run's session. */
  models?: () => ModelCatalog | undefined;
}

function openSessionManager(ctx: RunContext, sessionDir: string): SessionManager {
  mkdirSync(sessionDir, { recursive: true });
  const file = ctx.session.sessionFile;
  if (file) {
    try {
      return SessionManager.open(file, { sessionDir, cwdOverride: ctx.workspaceDir, onWarning: () => {} });
    } catch (err) {
      // A transcript that was never written does not exist yet: start it under the same id.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  const sm = SessionManager.create(ctx.workspaceDir, { sessionDir });
  sm.newSession({ id: ctx.session.sessionId });
  return sm;
}

/** A SessionFactory whose sessions are the coding agent's AgentSession, with the run's tools. */
export function createToolSessionFactory(options: ToolEngineOptions): SessionFactory {
  return async (ctx) => {
    const sm = openSessionManager(ctx, options.transcriptDir(ctx.agentId));
    if (ctx.request.resume) rewindToBatch(sm, ctx.request.resume);
    const hooks = options.hooks;
    if (hooks?.hasHooks("tool_result_persist")) {
      // The transcript gets the plugins' version of each tool result; the model already saw the original.
      const append = sm.appendMessage.bind(sm);
      const hookCtx = { agentId: ctx.agentId, sessionKey: ctx.sessionKey, runId: ctx.runId };
      sm.appendMessage = (message: AgentMessage): string => {
        if ((message as { role?: string }).role !== "toolResult") return append(message);
        const m = message as ToolResultMessage;
        return append(
          hooks.runToolResultPersist({ toolName: m.toolName, toolCallId: m.toolCallId, message: m }, hookCtx),
        );
      };
    }
    const tools = ctx.tools;
    // Retries and failover belong to the gateway's model-call layer; the session must not retry on top of it.
    const settings = SettingsManager.inMemory({
      retry: { enabled: false, maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 },
    });
    const modelRegistry = options.models?.();
    let created: Awaited<ReturnType<typeof createAgentSession>>;
    try {
      created = await createAgentSession({
        ...(modelRegistry ? { modelRegistry } : {}),
        cwd: ctx.workspaceDir,
        home: ctx.config.home,
        model: ctx.model.model,
        thinkingLevel: (ctx.thinking || "off") as ThinkingLevel,
        tools,
        systemPrompt: ctx.systemPrompt,
        sessionManager: sm,
        settingsManager: settings,
        streamFn: (model, context, opts) => ctx.callModel(model, context, { ...opts, apiKey: ctx.model.apiKey }),
      });
    } catch (err) {
      sm.close(); // the run fails, but its session file must not stay open (and locked) behind it
      throw err;
    }
    return created.session;
  };
}
