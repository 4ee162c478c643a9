import type { AgentMessage, StreamFn } from "@tiller/agent";
import type { AssistantMessage, Context, ToolResultMessage, UserMessage } from "@tiller/ai";
import { createAssistantMessageEventStream, fauxAssistantMessage } from "@tiller/ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CompactionSettings,
  compactMessages,
  findMessageCutPoint,
  limitHistoryTurns,
  pruneContext,
  SUMMARIZATION_SYSTEM_PROMPT,
  TURN_PREFIX_PROMPT,
} from "../src/index.js";

const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 0 });
const text = (t: string): AssistantMessage => fauxAssistantMessage(t);
let callN = 0;
const call = (name: string, args: Record<string, unknown>): AssistantMessage =>
  fauxAssistantMessage({ type: "toolCall", id: `c${++callN}`, name, arguments: args });
const result = (of: AssistantMessage, body: string, isError = false): ToolResultMessage => {
  const c = of.content[0] as { id: string; name: string };
  return {
    role: "toolResult",
    toolCallId: c.id,
    toolName: c.name,
    content: [{ type: "text", text: body }],
    isError,
    timestamp: 0,
  };
};

/** A scripted summarizer: records prompts, answers with a label per prompt kind. */
function scriptedModel() {
  const prompts: string[] = [];
  const streamFn: StreamFn = (_model, context: Context) => {
    expect(context.systemPrompt).toBe(SUMMARIZATION_SYSTEM_PROMPT);
    const first = context.messages[0] as UserMessage;
    const p = (first.content as { text: string }[])[0]?.text ?? "";
    prompts.push(p);
    const s = createAssistantMessageEventStream();
    const reply = p.includes(TURN_PREFIX_PROMPT) ? "PREFIX-SUMMARY" : "HISTORY-SUMMARY";
    const msg = fauxAssistantMessage(reply);
    queueMicrotask(() => s.push({ type: "done", reason: "stop", message: msg }));
    return s;
  };
  return { prompts, streamFn };
}

const model = {
  id: "m",
  name: "m",
  api: "faux",
  provider: "faux",
  baseUrl: "",
  reasoning: false,
  input: ["text" as const],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 10000,
  maxTokens: 1000,
};
const settings = (over: Partial<CompactionSettings> = {}): CompactionSettings => ({
  enabled: true,
  reserveTokens: 1000,
  keepRecentTokens: 300,
  mode: "default",
  maxHistoryShare: 0.5,
  ...over,
});
const ids = new WeakMap<object, string>();
const idOf = (m: AgentMessage) => {
  if (!ids.has(m)) ids.set(m, `e${Math.random().toString(16).slice(2, 10)}`);
  return ids.get(m);
};

describe("cut point", () => {
  it("never starts the kept part at a tool result, for any conversation and budget", () => {
    const msg = fc.oneof(
      fc.record({ kind: fc.constant("user" as const), size: fc.integer({ min: 1, max: 2000 }) }),
      fc.record({ kind: fc.constant("text" as const), size: fc.integer({ min: 1, max: 2000 }) }),
      fc.record({
        kind: fc.constant("tools" as const),
        size: fc.integer({ min: 1, max: 4000 }),
        n: fc.integer({ min: 1, max: 3 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(msg, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 5000 }), (spec, keep) => {
        const messages: AgentMessage[] = [];
        for (const s of spec) {
          if (s.kind === "user") messages.push(user("u".repeat(s.size)));
          else if (s.kind === "text") messages.push(text("a".repeat(s.size)));
          else {
            const calls = Array.from({ length: s.n }, (_, i) => ({
              type: "toolCall" as const,
              id: `t${messages.length}-${i}`,
              name: "read",
              arguments: { path: "p" },
            }));
            const a = fauxAssistantMessage(calls);
            messages.push(a);
            for (const c of calls)
              messages.push({
                role: "toolResult",
                toolCallId: c.id,
                toolName: "read",
                content: [{ type: "text", text: "r".repeat(s.size) }],
                isError: false,
                timestamp: 0,
              });
          }
        }
        const cut = findMessageCutPoint(messages, 0, keep);
        if (!cut) return;
        expect(messages[cut.firstKept]?.role).not.toBe("toolResult");
        const kept = messages.slice(cut.firstKept);
        const callsKept = new Set(
          kept.flatMap((m) =>
            m.role === "assistant"
              ? m.content.filter((b) => b.type === "toolCall").map((b) => (b as { id: string }).id)
              : [],
          ),
        );
        for (const m of kept) if (m.role === "toolResult") expect(callsKept.has(m.toolCallId)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("compactMessages()", () => {
  it("summarizes an oversized turn in two parts: earlier history and the start of the cut turn", async () => {
    const { prompts, streamFn } = scriptedModel();
    const c1 = call("read", { path: "src/a.ts" });
    const c2 = call("edit", { path: "src/b.ts" });
    const c3 = call("read", { path: "src/c.ts" });
    const messages: AgentMessage[] = [
      user("earlier question"),
      text("earlier answer ".repeat(50)),
      user("big task"),
      c1,
      result(c1, "A".repeat(2000)),
      c2,
      result(c2, "B".repeat(2000)),
      c3,
      result(c3, "C".repeat(800)),
    ];
    const r = await compactMessages({
      messages,
      entryIdOf: idOf,
      settings: settings(),
      model,
      streamFn,
      tokensBefore: 2000,
    });
    expect(prompts).toHaveLength(2);
    expect(prompts.some((p) => p.includes("[User]: earlier question") && !p.includes("big task"))).toBe(true);
    expect(prompts.some((p) => p.includes(TURN_PREFIX_PROMPT) && p.includes("[User]: big task"))).toBe(true);
    expect(r.summary).toContain("HISTORY-SUMMARY");
    expect(r.summary).toContain("## Current Turn (earlier part)\nPREFIX-SUMMARY");
    expect(r.firstKeptIndex).toBe(7);
    expect(r.firstKeptEntryId).toBe(idOf(c3));
    expect(r.details).toMatchObject({ readFiles: ["src/a.ts"], modifiedFiles: ["src/b.ts"], splitTurn: true });
    expect(r.summary).toContain("<modified-files>\nsrc/b.ts\n</modified-files>");
  });

  it("updates a previous summary and accumulates file lists", async () => {
    const { prompts, streamFn } = scriptedModel();
    const c1 = call("write", { path: "new.ts" });
    const messages: AgentMessage[] = [
      { role: "compactionSummary", summary: "OLD SUMMARY", tokensBefore: 10, timestamp: 0 },
      user("q1 ".repeat(300)),
      c1,
      result(c1, "ok"),
      text("done ".repeat(100)),
      user("q2 ".repeat(400)),
    ];
    const r = await compactMessages({
      messages,
      entryIdOf: idOf,
      settings: settings(),
      model,
      streamFn,
      tokensBefore: 999,
      previousDetails: { readFiles: ["old.ts"], modifiedFiles: [] },
    });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("<previous-summary>\nOLD SUMMARY\n</previous-summary>");
    expect(r.details.readFiles).toEqual(["old.ts"]);
    expect(r.details.modifiedFiles).toEqual(["new.ts"]);
  });

  it("safeguard mode keeps tool failures and caps the kept part at maxHistoryShare of the window", async () => {
    const { streamFn } = scriptedModel();
    const c1 = call("edit", { path: "x.ts" });
    const messages: AgentMessage[] = [
      user("fix x"),
      c1,
      result(c1, "old text not found in x.ts", true),
      text("retrying ".repeat(200)),
      user("next ".repeat(200)),
      text("answer ".repeat(200)),
    ];
    const small = { ...model, contextWindow: 1000 };
    const r = await compactMessages({
      messages,
      entryIdOf: idOf,
      settings: settings({ mode: "safeguard", keepRecentTokens: 100000, maxHistoryShare: 0.3 }),
      model: small,
      streamFn,
      tokensBefore: 1500,
    });
    expect(r.details.toolFailures?.[0]).toMatch(/^edit\(path=x\.ts\): old text not found/);
    expect(r.summary).toContain("## Tool Failures\n- edit(path=x.ts)");
    expect(r.firstKeptIndex).toBeGreaterThan(0);
  });

  it("refuses when everything is recent", async () => {
    const { streamFn } = scriptedModel();
    await expect(
      compactMessages({
        messages: [user("hi"), text("yo")],
        entryIdOf: idOf,
        settings: settings(),
        model,
        streamFn,
        tokensBefore: 5,
      }),
    ).rejects.toThrow(/nothing to compact/);
  });
});

describe("context pruning by cache TTL", () => {
  const big = "Z".repeat(10_000);
  const c1 = call("read", { path: "a" });
  const c2 = call("read", { path: "b" });
  const msgs: AgentMessage[] = [user("go"), c1, result(c1, big), c2, result(c2, big), text("done")];
  const s = { mode: "cache-ttl" as const, ttlMs: 1000, keepRecentTurns: 2, minChars: 4000 };

  it("trims old large tool results only after the idle TTL, and never recent ones", () => {
    expect(pruneContext(msgs, s, 5000, 5500)).toBe(msgs);
    const pruned = pruneContext(msgs, s, 1000, 5000);
    const t = (m: AgentMessage | undefined) => ((m as ToolResultMessage).content[0] as { text: string }).text;
    expect(t(pruned[2]).length).toBeLessThan(2000);
    expect(t(pruned[2])).toMatch(/pruned from the context/);
    expect(t(pruned[4])).toBe(big);
    expect(t(msgs[2])).toBe(big); // the transcript itself is untouched
  });

  it("is off by default mode", () => {
    expect(pruneContext(msgs, { ...s, mode: "off" }, 0, 1e9)).toBe(msgs);
  });
});

describe("limitHistoryTurns", () => {
  it("keeps the last n user turns whole", () => {
    const c = call("read", { path: "a" });
    const m: AgentMessage[] = [user("1"), text("a"), user("2"), c, result(c, "r"), user("3"), text("b")];
    expect(limitHistoryTurns(m, 2)).toEqual(m.slice(2));
    expect(limitHistoryTurns(m, 10)).toEqual(m);
    expect(limitHistoryTurns(m, 0)).toEqual([]);
  });
});
