import type { AgentEvent } from "@tiller/agent";
import type { AssistantMessage } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import { ReplyShaper, type ReplyShaperOptions, type ShapedPayload } from "../src/reply/reply-shaper.js";

function assistant(text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: "assistant",
    content: text ? [{ type: "text", text }] : [],
    api: "openai-completions",
    provider: "test",
    model: "m",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: 0,
    ...extra,
  };
}

/** The events of one streamed assistant message made of `deltas` (and optional native thinking). */
function message(deltas: string[], opts: { thinking?: string[]; end?: Partial<AssistantMessage> } = {}): AgentEvent[] {
  const full = deltas.join("");
  const m = assistant(full, opts.end);
  const events: AgentEvent[] = [{ type: "message_start", message: m }];
  for (const t of opts.thinking ?? []) {
    events.push({
      type: "message_update",
      message: m,
      assistantMessageEvent: { type: "thinking_delta", contentIndex: 0, delta: t, partial: m },
    });
  }
  for (const delta of deltas) {
    events.push({
      type: "message_update",
      message: m,
      assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta, partial: m },
    });
  }
  events.push({
    type: "message_update",
    message: m,
    assistantMessageEvent: { type: "text_end", contentIndex: 0, content: full, partial: m },
  });
  events.push({ type: "message_end", message: m });
  return events;
}

function tool(name: string, args: Record<string, unknown>, result: string, isError = false, id = "t1"): AgentEvent[] {
  return [
    { type: "tool_execution_start", toolCallId: id, toolName: name, args },
    {
      type: "tool_execution_end",
      toolCallId: id,
      toolName: name,
      result: { content: [{ type: "text", text: result }], details: {} },
      isError,
    },
  ];
}

function run(events: AgentEvent[], options: ReplyShaperOptions = {}) {
  const deltas: string[] = [];
  const blocks: ShapedPayload[] = [];
  const reasoning: string[] = [];
  const shaper = new ReplyShaper({
    ...options,
    onAssistantDelta: (e) => deltas.push(e.delta),
    onBlockReply: (p) => blocks.push(p),
    onReasoningDelta: (e) => reasoning.push(e.delta),
  });
  for (const e of events) shaper.handleEvent(e);
  return { shaper, deltas, blocks, reasoning, payloads: shaper.finalize() };
}

describe("reply shaper: text, tags and directives", () => {
  it("streams cleaned deltas and builds a final payload with directive fields", () => {
    const r = run(
      message(["[[rep", "ly:m1]] Hel", "lo <thi", "nk>hidden</th", "ink>world [[media:https://a.test/", "x.png]]"]),
    );
    expect(r.deltas.join("")).toBe("Hello world ");
    expect(r.payloads).toEqual([{ text: "Hello world", replyToId: "m1", mediaUrls: ["https://a.test/x.png"] }]);
  });

  it("with enforceFinalTag only <final> text reaches the stream and the payload", () => {
    const r = run(message(["I should greet. <fi", "nal>Hi!</final>"]), { enforceFinalTag: true });
    expect(r.deltas.join("")).toBe("Hi!");
    expect(r.payloads).toEqual([{ text: "Hi!" }]);
  });

  it("NO_REPLY suppresses the reply, the stream and blocks, even when split across deltas", () => {
    for (const deltas of [["NO_REPLY"], ["NO", "_REP", "LY"], ["  no_reply\n"]]) {
      const r = run(message(deltas), { blockStreaming: { minChars: 1, maxChars: 50, break: "text_end" } });
      expect(r.payloads).toEqual([]);
      expect(r.deltas).toEqual([]);
      expect(r.blocks).toEqual([]);
    }
  });

  it("text that only starts like NO_REPLY is released in full", () => {
    const r = run(message(["NO", "_REPORT is ready"]));
    expect(r.deltas.join("")).toBe("NO_REPORT is ready");
    expect(r.payloads).toEqual([{ text: "NO_REPORT is ready" }]);
  });

  it("a model error becomes an error payload after the partial text", () => {
    const r = run(message(["Partial"], { end: { stopReason: "error", errorMessage: "rate limited" } }));
    expect(r.payloads).toEqual([{ text: "Partial" }, { text: "⚠️ rate limited", isError: true }]);
  });
});

describe("reply shaper: messaging tools and tool errors", () => {
  it("text a messaging tool already sent is not sent again", () => {
    const r = run([
      ...tool("message", { to: "bob", text: "Meeting moved to 3pm." }, "sent"),
      ...message(["Meeting moved to 3pm."]),
      ...message(["Anything else?"]),
    ]);
    expect(r.payloads).toEqual([{ text: "Anything else?" }]);
  });

  it("a failed messaging tool call does not suppress the assistant text", () => {
    const r = run([
      ...tool("message", { text: "Meeting moved." }, "channel down", true),
      ...message(["Meeting moved."]),
    ]);
    expect(r.payloads).toEqual([{ text: "Meeting moved." }]);
  });

  it("a block that repeats a messaging-tool send is not streamed", () => {
    const r = run(
      [...tool("message", { text: "Report sent to the team" }, "ok"), ...message(["Report sent to the team"])],
      {
        blockStreaming: { minChars: 1, maxChars: 100, break: "text_end" },
      },
    );
    expect(r.blocks).toEqual([]);
    expect(r.payloads).toEqual([]);
  });

  it("when nothing renders and a tool failed, a short tool-error reply is sent", () => {
    const r = run([
      ...tool("read", { path: "/nope" }, "ENOENT: no such file or directory, open '/nope'", true),
      ...message([""]),
    ]);
    expect(r.payloads).toEqual([
      { text: "⚠️ read failed: ENOENT: no such file or directory, open '/nope'", isError: true },
    ]);
  });

  it("no tool-error reply when the assistant answered or a messaging tool delivered", () => {
    const answered = run([...tool("read", {}, "boom", true), ...message(["The file is missing."])]);
    expect(answered.payloads).toEqual([{ text: "The file is missing." }]);
    const delivered = run([
      ...tool("message", { text: "Done" }, "ok", false, "m1"),
      ...tool("exec", { command: "false" }, "exit 1", true, "e1"),
      ...message(["NO_REPLY"]),
    ]);
    expect(delivered.payloads).toEqual([]);
  });

  it("verbose mode inlines tool summaries before the answer", () => {
    const r = run([...tool("exec", { command: "ls   -la" }, "ok"), ...message(["Listed."])], { verbose: true });
    expect(r.payloads).toEqual([{ text: "🔧 exec: ls -la", isToolSummary: true }, { text: "Listed." }]);
  });
});

describe("reply shaper: block streaming and reasoning", () => {
  const text = "First paragraph is here.\n\nSecond paragraph is here.\n\nThird.";

  it("text_end: blocks go out while streaming and are not repeated in the final payloads", () => {
    const deltas = text.match(/.{1,5}/gs) as string[];
    const seen: number[] = [];
    const shaper = new ReplyShaper({
      blockStreaming: { minChars: 10, maxChars: 40, break: "text_end" },
      onBlockReply: () => seen.push(1),
    });
    const events = message(deltas);
    // A block is delivered before the message ends.
    let blocksBeforeEnd = 0;
    for (const e of events) {
      if (e.type === "message_end") blocksBeforeEnd = seen.length;
      shaper.handleEvent(e);
    }
    expect(blocksBeforeEnd).toBeGreaterThan(0);
    expect(shaper.finalize()).toEqual([]);
    const r = run(events, { blockStreaming: { minChars: 10, maxChars: 40, break: "text_end" } });
    expect(r.blocks.map((b) => b.text)).toEqual(["First paragraph is here.", "Second paragraph is here.", "Third."]);
  });

  it("message_end: blocks are only emitted at the end of the message", () => {
    const seen: string[] = [];
    const shaper = new ReplyShaper({
      blockStreaming: { minChars: 10, maxChars: 40, break: "message_end" },
      onBlockReply: (p) => seen.push(p.text ?? ""),
    });
    const events = message([text]);
    for (const e of events.slice(0, -1)) shaper.handleEvent(e);
    expect(seen).toEqual([]);
    shaper.handleEvent(events.at(-1) as AgentEvent);
    expect(seen).toEqual(["First paragraph is here.", "Second paragraph is here.\n\nThird."]);
  });

  it("reasoning can be streamed separately or sent as its own reply", () => {
    const events = message(["Answer <think>tag reasoning</think>"], { thinking: ["native "] });
    const streamed = run(events, { reasoning: "stream" });
    expect(streamed.reasoning.join("")).toBe("native tag reasoning");
    expect(streamed.payloads).toEqual([{ text: "Answer" }]);
    const shown = run(events, { reasoning: "on" });
    expect(shown.payloads).toEqual([{ text: "native tag reasoning", isReasoning: true }, { text: "Answer" }]);
    const hidden = run(events, { reasoning: "off" });
    expect(hidden.payloads).toEqual([{ text: "Answer" }]);
  });

  it("after a compaction retry the failed attempt's text and tool errors are not sent", () => {
    const shaper = new ReplyShaper({ verbose: true });
    for (const e of [...tool("read", { path: "a" }, "bad", true), ...message(["Half an ans"])]) shaper.handleEvent(e);
    shaper.resetForRetry();
    for (const e of message(["The full answer."])) shaper.handleEvent(e);
    expect(shaper.finalize()).toEqual([{ text: "The full answer." }]);
  });
});
