import { describe, expect, it } from "vitest";
import { HookRunner } from "../src/plugins/hook-runner.js";
import type {
  ErasedHookHandler,
  PluginHookHandler,
  PluginHookName,
  PluginHookRegistration,
} from "../src/plugins/hook-types.js";

function reg<K extends PluginHookName>(
  pluginId: string,
  hookName: K,
  priority: number,
  handler: PluginHookHandler<K>,
): PluginHookRegistration {
  return { pluginId, hookName, priority, handler: handler as ErasedHookHandler };
}

function collectingLogger() {
  const warnings: string[] = [];
  const debug: string[] = [];
  return { warnings, debug, logger: { warn: (m: string) => warnings.push(m), debug: (m: string) => debug.push(m) } };
}

const toolEvent = { toolName: "exec", toolCallId: "c1", params: { command: "rm -rf /" } };

describe("before_tool_call decision rules", () => {
  it("the first requireApproval wins, stamped with its plugin, and freezes params; a later block still blocks", async () => {
    const asked = new HookRunner([
      reg("rewrite", "before_tool_call", 9, () => ({ params: { command: "ls -la" } })),
      reg("gate", "before_tool_call", 5, () => ({ requireApproval: { title: "Run it?", severity: "critical" } })),
      reg("late-gate", "before_tool_call", 3, () => ({ requireApproval: { title: "Second ask" } })),
      reg("late-rewrite", "before_tool_call", 1, () => ({ params: { command: "rm -rf /" } })),
    ]);
    expect(await asked.runBeforeToolCall(toolEvent)).toEqual({
      params: { command: "ls -la" },
      requireApproval: { title: "Run it?", severity: "critical", pluginId: "gate" },
    });
    const blocked = new HookRunner([
      reg("gate", "before_tool_call", 5, () => ({ requireApproval: { title: "Run it?" } })),
      reg("guard", "before_tool_call", 1, () => ({ block: true, blockReason: "never" })),
    ]);
    expect(await blocked.runBeforeToolCall(toolEvent)).toMatchObject({ block: true, blockReason: "never" });
  });

  it("runs higher priority first and a block is terminal: lower-priority handlers never run", async () => {
    const order: string[] = [];
    const { logger, debug } = collectingLogger();
    const runner = new HookRunner(
      [
        reg("low", "before_tool_call", -5, () => {
          order.push("low");
          return undefined;
        }),
        reg("guard", "before_tool_call", 10, () => {
          order.push("guard");
          return { block: true, blockReason: "dangerous command" };
        }),
        reg("mid", "before_tool_call", 0, () => {
          order.push("mid");
          return { block: false };
        }),
      ],
      logger,
    );
    const result = await runner.runBeforeToolCall(toolEvent);
    expect(order).toEqual(["guard"]);
    expect(result).toMatchObject({ block: true, blockReason: "dangerous command", blockedBy: "guard" });
    expect(debug.join("\n")).toContain("decided by guard (priority=10)");
  });

  it("block:false from a later handler never clears an earlier block, and params after a block are ignored", async () => {
    // A blocking handler at priority 5 and an allow at priority 1: the allow never runs, and even if one did run
    // (same hook, later) the block stays.
    const runner = new HookRunner([
      reg("a-params", "before_tool_call", 9, () => ({ params: { command: "ls" } })),
      reg("b-block", "before_tool_call", 5, () => ({ block: true })),
      reg("c-allow", "before_tool_call", 1, () => ({ block: false, params: { command: "rm -rf /" } })),
    ]);
    const result = await runner.runBeforeToolCall(toolEvent);
    expect(result.block).toBe(true);
    expect(result.params).toEqual({ command: "ls" });
    expect(result.blockReason).toBe("blocked by plugin b-block");
  });

  it("block:false is a no-op: the call proceeds and the last params rewrite wins", async () => {
    const runner = new HookRunner([
      reg("p1", "before_tool_call", 3, () => ({ block: false, params: { command: "echo first" } })),
      reg("p2", "before_tool_call", 2, () => ({ params: { command: "echo second" } })),
      reg("p3", "before_tool_call", 1, () => ({ block: false })),
    ]);
    const result = await runner.runBeforeToolCall(toolEvent);
    expect(result.block).toBeUndefined();
    expect(result.params).toEqual({ command: "echo second" });
  });

  it("a throwing handler is logged and skipped; the next handler still decides", async () => {
    const { logger, warnings } = collectingLogger();
    const runner = new HookRunner(
      [
        reg("broken", "before_tool_call", 10, () => {
          throw new Error("boom");
        }),
        reg("guard", "before_tool_call", 0, async () => ({ block: true, blockReason: "no" })),
      ],
      logger,
    );
    const result = await runner.runBeforeToolCall(toolEvent);
    expect(result.block).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("before_tool_call handler of plugin broken failed: boom");
  });

  it("equal priorities keep registration order", async () => {
    const order: string[] = [];
    const runner = new HookRunner();
    for (const id of ["first", "second", "third"]) {
      runner.add(
        reg(id, "before_tool_call", 1, () => {
          order.push(id);
          return undefined;
        }),
      );
    }
    await runner.runBeforeToolCall(toolEvent);
    expect(order).toEqual(["first", "second", "third"]);
  });
});

describe("before_install and message_sending decision rules", () => {
  it("before_install: block is terminal, findings of the handlers that ran are concatenated", async () => {
    const ran: string[] = [];
    const runner = new HookRunner([
      reg("scan", "before_install", 5, () => {
        ran.push("scan");
        return { findings: ["uses eval"], block: false };
      }),
      reg("policy", "before_install", 3, () => {
        ran.push("policy");
        return { block: true, blockReason: "unsigned", findings: ["unsigned package"] };
      }),
      reg("late", "before_install", 1, () => {
        ran.push("late");
        return { block: false };
      }),
    ]);
    const result = await runner.runBeforeInstall({ kind: "skill", name: "x", source: "/tmp/x", findings: [] });
    expect(ran).toEqual(["scan", "policy"]);
    expect(result).toMatchObject({ block: true, blockReason: "unsigned", blockedBy: "policy" });
    expect(result.findings).toEqual(["uses eval", "unsigned package"]);
  });

  it("before_install: block:false alone lets the install proceed", async () => {
    const runner = new HookRunner([reg("ok", "before_install", 0, () => ({ block: false }))]);
    const result = await runner.runBeforeInstall({ kind: "plugin", name: "p", source: "/tmp/p", findings: [] });
    expect(result.block).toBeUndefined();
  });

  it("message_sending: cancel is terminal and sticky; content rewrites chain until then", async () => {
    const seen: string[] = [];
    const runner = new HookRunner([
      reg("rewrite", "message_sending", 10, (e) => {
        seen.push(`rewrite:${e.content}`);
        return { content: e.content.toUpperCase() };
      }),
      reg("cancel", "message_sending", 5, () => ({ cancel: true })),
      reg("uncancel", "message_sending", 1, () => ({ cancel: false, content: "sneaky" })),
    ]);
    const result = await runner.runMessageSending({ to: "u", content: "hello" });
    expect(seen).toEqual(["rewrite:hello"]);
    expect(result).toMatchObject({ cancel: true, cancelledBy: "cancel", content: "HELLO" });
  });
});

describe("prompt and model hooks", () => {
  it("before_model_resolve: the highest-priority defined override wins per field", async () => {
    const runner = new HookRunner([
      reg("low", "before_model_resolve", 1, () => ({ modelOverride: "low-model", providerOverride: "low-prov" })),
      reg("high", "before_model_resolve", 9, () => ({ modelOverride: "high-model" })),
    ]);
    expect(await runner.runBeforeModelResolve({ prompt: "hi" })).toEqual({
      modelOverride: "high-model",
      providerOverride: "low-prov",
    });
  });

  it("before_prompt_build: systemPrompt first-defined wins, context fields concatenate in priority order", async () => {
    const runner = new HookRunner([
      reg("b", "before_prompt_build", 1, () => ({
        systemPrompt: "B prompt",
        prependContext: "B ctx",
        appendSystemContext: "B append",
      })),
      reg("a", "before_prompt_build", 2, () => ({ prependContext: "A ctx", prependSystemContext: "A prepend" })),
    ]);
    const r = await runner.runBeforePromptBuild({ prompt: "hi", messages: [] });
    expect(r).toEqual({
      systemPrompt: "B prompt",
      prependContext: "A ctx\n\nB ctx",
      prependSystemContext: "A prepend",
      appendSystemContext: "B append",
    });
  });

  it("before_agent_reply: the first handled:true claims the turn and lower handlers do not run", async () => {
    const ran: string[] = [];
    const runner = new HookRunner([
      reg("pass", "before_agent_reply", 9, () => {
        ran.push("pass");
        return { handled: false };
      }),
      reg("claim", "before_agent_reply", 5, () => {
        ran.push("claim");
        return { handled: true, reply: "synthetic" };
      }),
      reg("never", "before_agent_reply", 1, () => {
        ran.push("never");
        return { handled: true, reply: "other" };
      }),
    ]);
    const claim = await runner.runBeforeAgentReply({ prompt: "hi" });
    expect(ran).toEqual(["pass", "claim"]);
    expect(claim).toEqual({ handled: true, reply: "synthetic", pluginId: "claim" });
    expect(await new HookRunner().runBeforeAgentReply({ prompt: "x" })).toBeUndefined();
  });
});

describe("observe-only hooks and tool_result_persist", () => {
  it("observe-only handlers run in parallel and a throwing one does not stop the others", async () => {
    const { logger, warnings } = collectingLogger();
    let active = 0;
    let maxActive = 0;
    const slow = async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 20));
      active--;
    };
    const runner = new HookRunner(
      [
        reg("a", "agent_end", 0, slow),
        reg("b", "agent_end", 0, slow),
        reg("c", "agent_end", 0, () => {
          throw new Error("bad observer");
        }),
      ],
      logger,
    );
    await runner.runObserver("agent_end", { messages: [], success: true, durationMs: 1 });
    expect(maxActive).toBe(2);
    expect(warnings.join()).toContain("bad observer");
  });

  it("tool_result_persist chains synchronous replacements and ignores a Promise with a warning", () => {
    const { logger, warnings } = collectingLogger();
    const base = {
      role: "toolResult" as const,
      toolCallId: "c",
      toolName: "read",
      content: [{ type: "text" as const, text: "secret=123" }],
      isError: false,
      timestamp: 1,
    };
    const runner = new HookRunner(
      [
        reg("redact", "tool_result_persist", 5, (e) => ({
          message: { ...e.message, content: [{ type: "text", text: "secret=[redacted]" }] },
        })),
        // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong (async) handler.
        reg("async", "tool_result_persist", 3, (async () => ({ message: { ...base } })) as any),
        reg("tag", "tool_result_persist", 1, (e) => ({
          message: {
            ...e.message,
            content: [...e.message.content, { type: "text", text: "[persisted]" }],
          },
        })),
      ],
      logger,
    );
    const out = runner.runToolResultPersist({ toolName: "read", toolCallId: "c", message: base });
    expect(out.content).toEqual([
      { type: "text", text: "secret=[redacted]" },
      { type: "text", text: "[persisted]" },
    ]);
    expect(warnings.join()).toContain("must be synchronous");
  });
});
