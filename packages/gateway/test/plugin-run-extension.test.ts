// biome-ignore-all lint/suspicious/noExplicitAny: a partial RunContext is enough for the stages under test.
/**
 * The run extension and the runner's stages without a process: compaction retry resets the reply shaping
 * (nothing from the failed attempt is sent), before/after_compaction fire, the assistant stream carries cleaned
 * deltas, block replies go out on the `block` stream, model overrides, the workspace and prompt stages.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "@tiller/agent";
import type { AssistantMessage } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGatewayRunExtension } from "../src/plugins/gateway-run-extension.js";
import { HookRunner } from "../src/plugins/hook-runner.js";
import type { ErasedHookHandler, PluginHookName } from "../src/plugins/hook-types.js";
import type { EmbeddedSession } from "../src/run/embedded-session.js";
import type { RunContext, RunOutcome } from "../src/run/run-types.js";
import { resolveRunModel } from "../src/run/stages/model-stage.js";
import { hookContextOf, SkillsSnapshots } from "../src/run/stages/pipeline.js";
import { buildRunPrompt } from "../src/run/stages/prompt-stage.js";
import { RunReplyShaping } from "../src/run/stages/reply-stage.js";
import { resolveRunWorkspace } from "../src/run/stages/workspace-stage.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "tiller-ext-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function fakeCtx(emitted: { stream: string; data: any }[]): RunContext {
  return {
    runId: "r1",
    memberRunIds: ["r1"],
    sessionKey: "agent:main:main",
    agentId: "main",
    request: {
      runId: "r1",
      sessionKey: "agent:main:main",
      agentId: "main",
      message: "hi",
      acceptedAt: 1,
      source: "agent",
    },
    config: {
      home,
      agents: { list: [{ id: "main" }], defaultId: "main", defaults: { workspace: join(home, "workspace") } },
      raw: {},
    },
    session: { sessionId: "s1", sessionFile: "" },
    prompt: "hi",
    model: {
      ref: "mock/m",
      model: { provider: "mock", id: "m", api: "openai-completions", contextWindow: 100_000, input: ["text"] },
    },
    thinking: "off",
    verbose: false,
    timeoutMs: 1000,
    workspaceDir: home,
    skills: [],
    systemPrompt: "",
    callModel: (() => {
      throw new Error("no model call expected");
    }) as any,
    signal: new AbortController().signal,
    emit: (stream: string, data: any) => emitted.push({ stream, data }),
    newMessages: [],
    payloads: [],
    usage: {} as any,
    state: {},
    startedAt: 1,
  } as unknown as RunContext;
}

function msg(text: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "mock",
    model: "m",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: {} as any },
    stopReason: "stop",
    timestamp: 0,
  };
}

function textEvents(deltas: string[]): AgentEvent[] {
  const m = msg(deltas.join(""));
  return [
    { type: "message_start", message: m },
    ...deltas.map(
      (delta): AgentEvent => ({
        type: "message_update",
        message: m,
        assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta, partial: m },
      }),
    ),
    { type: "message_end", message: m },
  ];
}

const obs = (hookName: PluginHookName, seen: string[]) => ({
  pluginId: "obs",
  hookName,
  priority: 0,
  handler: (() => {
    seen.push(hookName);
  }) as ErasedHookHandler,
});

const outcome: RunOutcome = {
  status: "ok",
  summary: "completed",
  startedAt: 1,
  endedAt: 2,
  result: { payloads: [], meta: { durationMs: 1, agentMeta: { sessionId: "s1", provider: "mock", model: "m" } } },
};

/** The session as the extension's event hook sees it. */
const session = { messages: [], sessionFile: undefined } as unknown as EmbeddedSession;

describe("gateway run extension", () => {
  it("a compaction retry drops the failed attempt's text; compaction hooks fire; cleaned deltas are returned", async () => {
    const seen: string[] = [];
    const hooks = new HookRunner([
      obs("before_compaction", seen),
      obs("after_compaction", seen),
      obs("agent_end", seen),
    ]);
    const ext = createGatewayRunExtension({ hooks });
    const emitted: { stream: string; data: any }[] = [];
    const ctx = fakeCtx(emitted);
    await ext.resolveModel?.(ctx);
    const reply = new RunReplyShaping(ctx, {});
    const feed = (e: any) => {
      const cleaned = reply.handle(e);
      ext.onAgentEvent?.(ctx, e, session);
      return cleaned;
    };
    const failed = textEvents(["Half <think>plan</think>an ans"]);
    const shaped = failed.map(feed);
    expect(shaped[1]).toBe("Half an ans");
    // The event itself is untouched: the engine and other listeners read what the model sent.
    expect((failed[1] as any).assistantMessageEvent.delta).toBe("Half <think>plan</think>an ans");
    feed({ type: "compaction_start", reason: "overflow" });
    feed({ type: "compaction_end", reason: "overflow", result: undefined, aborted: false, willRetry: true });
    for (const e of textEvents(["The whole answer."])) feed(e);
    const payloads = await ext.shapeReply?.(ctx, reply.payloads());
    expect(payloads).toEqual([{ text: "The whole answer.", mediaUrl: null }]);
    await ext.onRunEnd?.(ctx, outcome);
    await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual(["before_compaction", "after_compaction", "agent_end"]);
  });

  it("block streaming sends blocks as assistant events and keeps them out of the final payloads", async () => {
    const emitted: { stream: string; data: any }[] = [];
    const ctx = fakeCtx(emitted);
    const reply = new RunReplyShaping(ctx, { blockStreaming: { minChars: 5, maxChars: 30, break: "text_end" } });
    for (const e of textEvents(["First block here.\n\nSecond ", "block here."])) reply.handle(e);
    const blocks = emitted.filter((e) => e.stream === "block").map((e) => e.data.text);
    expect(blocks).toEqual(["First block here.", "Second block here."]);
    expect(reply.payloads()).toEqual([]);
  });

  it("before_model_resolve overrides switch the run's model; an unknown override keeps the model and is logged", async () => {
    const other = { ref: "mock/big", model: { provider: "mock", id: "big" } };
    const models = { resolve: (ref: string) => (ref === "big" ? other : undefined) } as any;
    const logs: string[] = [];
    const stage = (ctx: RunContext, model: string) =>
      resolveRunModel(ctx, {
        hooks: new HookRunner([
          {
            pluginId: "router",
            hookName: "before_model_resolve",
            priority: 0,
            handler: (() => ({ modelOverride: model })) as ErasedHookHandler,
          },
        ]),
        models,
        log: (l) => logs.push(l),
      });
    const ctx = fakeCtx([]);
    await stage(ctx, "big");
    expect(ctx.model).toBe(other);
    const ctx2 = fakeCtx([]);
    await stage(ctx2, "nope");
    expect(ctx2.model.ref).toBe("mock/m");
    expect(logs.join()).toContain("model override /nope is unknown");
  });

  it("a manual compaction context (sessions.compact) is not a turn: no message_received, no claim", async () => {
    const seen: string[] = [];
    const hooks = new HookRunner([
      obs("message_received", seen),
      obs("session_start", seen),
      {
        pluginId: "claimer",
        hookName: "before_agent_reply",
        priority: 0,
        handler: (() => {
          seen.push("before_agent_reply");
          return { handled: true, reply: "x" };
        }) as ErasedHookHandler,
      },
    ]);
    const ext = createGatewayRunExtension({ hooks });
    const ctx = fakeCtx([]);
    (ctx as any).runId = "compact:abc";
    await ext.resolveModel?.(ctx);
    const prompt = await buildRunPrompt(ctx, {
      workspace: resolveRunWorkspace(ctx),
      skills: new SkillsSnapshots().of(ctx, resolveRunWorkspace(ctx)),
      tools: [],
      hooks,
      hookContext: hookContextOf(ctx),
    });
    expect(await ext.claimTurn?.(ctx, prompt)).toBeUndefined();
    expect(seen).toEqual([]);
  });

  it("the workspace stage creates the agent workspace on first use; the prompt stage returns its report", async () => {
    const ctx = fakeCtx([]);
    const workspace = resolveRunWorkspace(ctx);
    const hooks = new HookRunner();
    const prepared = await buildRunPrompt(ctx, {
      workspace,
      skills: new SkillsSnapshots().of(ctx, workspace),
      tools: [],
      hooks,
      hookContext: hookContextOf(ctx),
    });
    expect(ctx.workspaceDir).toBe(join(home, "workspace"));
    expect(ctx.systemPrompt).toContain(`Your working directory is ${join(home, "workspace")}`);
    expect(prepared.report.sections.map((s: any) => s.id)).toContain("project_context");
    expect(prepared.report.bootstrapFiles.every((f: any) => f.missing)).toBe(true);
    // `/context` is answered with that report instead of a model call.
    (ctx.request as any).message = "/context";
    const claim = await createGatewayRunExtension({ hooks }).claimTurn?.(ctx, prepared);
    expect(claim?.reply).toMatch(/^System prompt \(full\)/);
  });
});
