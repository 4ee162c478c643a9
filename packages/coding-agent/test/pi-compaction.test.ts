/**
 * pi's entry-based compaction and branch-summary API on Tiller, run side by side with pi's own functions on the
 * same session entries; the model calls go to a loopback OpenAI-compatible server speaking the real SSE format.
 */
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as piIndex from "@mariozechner/pi-coding-agent";
import type { AssistantMessage, Message, Model, ToolResultMessage, UserMessage } from "@tiller/ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  calculateContextTokens,
  collectEntriesForBranchSummary,
  compact,
  DEFAULT_COMPACTION_SETTINGS,
  findCutPoint,
  findTurnStartIndex,
  generateBranchSummary,
  generateSummary,
  getLastAssistantUsage,
  prepareBranchEntries,
  prepareCompaction,
  type SessionEntry,
  SessionManager,
  serializeConversation,
  shouldCompact,
} from "../src/index.js";
import { type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";

// prepareCompaction is not on pi's index: take it from pi's compaction module.
const piCompactionFile = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../../node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/compaction.js",
);
const pi = {
  ...piIndex,
  ...((await import(pathToFileURL(piCompactionFile).href)) as { prepareCompaction: typeof prepareCompaction }),
};

const usage = (total: number) => ({
  input: total - 10,
  output: 10,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: total,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});
const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 1 });
const said = (text: string, total = 500): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "openai-completions",
  provider: "mock",
  model: "mock-1",
  usage: usage(total),
  stopReason: "stop",
  timestamp: 2,
});
let n = 0;
const calls = (...list: Array<[string, Record<string, unknown>]>): AssistantMessage => ({
  ...said(""),
  content: list.map(([name, args]) => ({ type: "toolCall" as const, id: `c${++n}`, name, arguments: args })),
  stopReason: "toolUse",
});
const result = (of: AssistantMessage, i: number, text: string): ToolResultMessage => {
  const c = of.content[i] as { id: string; name: string };
  return {
    role: "toolResult",
    toolCallId: c.id,
    toolName: c.name,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 3,
  };
};
const big = (label: string, chars: number) => `${label} ${"x".repeat(chars)}`;

/** A session with several turns, tool calls on files, a model change and a long last turn. */
function buildSession(): SessionManager {
  const sm = SessionManager.inMemory("/w");
  sm.appendMessage(user(big("first task", 4000)));
  const c1 = calls(["read", { path: "src/a.ts" }], ["edit", { path: "src/b.ts", oldText: "a", newText: "b" }]);
  sm.appendMessage(c1);
  sm.appendMessage(result(c1, 0, big("body of a", 3000)));
  sm.appendMessage(result(c1, 1, "edited"));
  sm.appendMessage(said(big("done with the first task", 2000), 4000));
  sm.appendModelChange("mock", "mock-1");
  sm.appendThinkingLevelChange("low");
  sm.appendMessage(user(big("second task", 4000)));
  const c2 = calls(["write", { path: "notes.md", content: "n" }]);
  sm.appendMessage(c2);
  sm.appendMessage(result(c2, 0, "written"));
  const c3 = calls(["read", { path: "src/c.ts" }]);
  sm.appendMessage(c3);
  sm.appendMessage(result(c3, 0, big("body of c", 6000)));
  sm.appendMessage(said(big("second task is half way", 3000), 9000));
  return sm;
}

let server: MockServer;
let model: Model;
beforeAll(async () => {
  server = await startMockOpenAI(() => ({ text: "SUMMARY" }));
  model = {
    id: "mock-1",
    name: "mock",
    api: "openai-completions",
    provider: "mock",
    baseUrl: server.baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 32000,
    maxTokens: 4000,
  };
});
afterAll(() => server.close());

describe("cut points", () => {
  const entries = buildSession().getBranch();
  it("findCutPoint returns pi's {firstKeptEntryIndex, turnStartIndex, isSplitTurn} for every budget and start", () => {
    for (let start = 0; start < entries.length; start += 3) {
      for (const keep of [0, 1, 500, 1000, 1500, 2000, 3000, 5000, 8000, 100000]) {
        const ours = findCutPoint(entries, start, entries.length, keep);
        expect(ours).toEqual(pi.findCutPoint(entries as never, start, entries.length, keep));
        expect(Object.keys(ours).sort()).toEqual(["firstKeptEntryIndex", "isSplitTurn", "turnStartIndex"]);
      }
    }
  });

  it("a budget inside the last turn splits it, one covering it does not", () => {
    const split = findCutPoint(entries, 0, entries.length, 1500);
    expect(split.isSplitTurn).toBe(true);
    expect((entries[split.turnStartIndex] as { message: Message }).message.role).toBe("user");
    const whole = findCutPoint(entries, 0, entries.length, 5000);
    expect(whole.isSplitTurn).toBe(false);
  });

  it("findTurnStartIndex agrees with pi at every index", () => {
    for (let i = 0; i < entries.length; i++) {
      expect(findTurnStartIndex(entries, i, 0)).toBe(pi.findTurnStartIndex(entries as never, i, 0));
    }
  });
});

describe("usage and thresholds", () => {
  it("calculateContextTokens and getLastAssistantUsage agree with pi, skipping failed answers", () => {
    const entries = buildSession().getBranch();
    const failed = { ...said("oops", 99999), stopReason: "error" as const };
    const withFailure: SessionEntry[] = [
      ...entries,
      { type: "message", id: "f", parentId: null, timestamp: "t", message: failed },
    ];
    expect(getLastAssistantUsage(withFailure)).toEqual(pi.getLastAssistantUsage(withFailure as never));
    expect(getLastAssistantUsage(withFailure)?.totalTokens).toBe(9000);
    expect(getLastAssistantUsage([])).toBeUndefined();
    const u = { ...usage(0), input: 7, output: 3, cacheRead: 2, cacheWrite: 1 };
    expect(calculateContextTokens(u)).toBe(13);
    expect(calculateContextTokens(u)).toBe(pi.calculateContextTokens(u));
    expect(calculateContextTokens(usage(120))).toBe(120);
  });

  it("shouldCompact takes pi's settings object and agrees with pi while the reserve is at most half the window", () => {
    expect(DEFAULT_COMPACTION_SETTINGS).toEqual(pi.DEFAULT_COMPACTION_SETTINGS);
    const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 };
    for (const window of [40000, 128000, 200000]) {
      for (const tokens of [0, window - 16385, window - 16384, window - 16383, window]) {
        expect(shouldCompact(tokens, window, settings)).toBe(pi.shouldCompact(tokens, window, settings));
      }
    }
    expect(shouldCompact(10 ** 9, 128000, { ...settings, enabled: false })).toBe(false);
    // Deliberate difference: an 8k window with a 16k reserve would otherwise compact on every turn.
    expect(pi.shouldCompact(100, 8000, settings)).toBe(true);
    expect(shouldCompact(100, 8000, settings)).toBe(false);
    expect(shouldCompact(4001, 8000, settings)).toBe(true);
  });
});

describe("serializeConversation", () => {
  it("writes pi's text format", () => {
    const c = calls(["read", { path: "a.ts", limit: 5 }], ["bash", { command: "ls -la" }]);
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "look at " },
          { type: "text", text: "a.ts" },
        ],
        timestamp: 1,
      },
      {
        ...said(""),
        content: [
          { type: "thinking", thinking: "I should read it" },
          { type: "text", text: "Reading." },
          { type: "text", text: "Also listing." },
          ...c.content,
        ],
      },
      result(c, 0, big("long file", 2500)),
      result(c, 1, ""),
      user(""),
    ];
    const text = serializeConversation(messages);
    expect(text).toBe(pi.serializeConversation(messages as never));
    expect(text).toContain('[Assistant tool calls]: read(path="a.ts", limit=5); bash(command="ls -la")');
    expect(text).toContain("[... 510 more characters truncated]");
  });
});

describe("prepareCompaction + compact", () => {
  it("prepare the same cut, history, turn prefix and files as pi", () => {
    const entries = buildSession().getBranch();
    const settings = { enabled: true, reserveTokens: 2000, keepRecentTokens: 1500 };
    const ours = prepareCompaction(entries, settings);
    const theirs = pi.prepareCompaction(entries as never, settings);
    expect(ours).toBeDefined();
    expect(ours?.firstKeptEntryId).toBe(theirs?.firstKeptEntryId);
    expect(ours?.isSplitTurn).toBe(true);
    expect(ours?.isSplitTurn).toBe(theirs?.isSplitTurn);
    expect(ours?.tokensBefore).toBe(theirs?.tokensBefore);
    expect(ours?.messagesToSummarize).toEqual(theirs?.messagesToSummarize);
    expect(ours?.turnPrefixMessages).toEqual(theirs?.turnPrefixMessages);
    expect(ours?.fileOps).toEqual(theirs?.fileOps);
    expect(
      prepareCompaction(
        [
          ...entries,
          {
            type: "compaction",
            id: "z",
            parentId: null,
            timestamp: "t",
            summary: "s",
            firstKeptEntryId: "x",
            tokensBefore: 1,
          },
        ],
        settings,
      ),
    ).toBeUndefined();
  });

  it("compact produces pi's CompactionResult through a real provider call, then carries file lists into the next", async () => {
    const sm = buildSession();
    const settings = { enabled: true, reserveTokens: 2000, keepRecentTokens: 1500 };
    const prep = prepareCompaction(sm.getBranch(), settings);
    if (!prep) throw new Error("nothing to compact");
    const before = server.requests.length;
    const ours = await compact(prep, model, "test-key");
    const theirs = await pi.compact(
      pi.prepareCompaction(sm.getBranch() as never, settings) as never,
      model as never,
      "test-key",
    );
    expect(server.requests.length - before).toBe(4); // history + turn prefix, for each implementation
    expect(ours).toEqual(theirs);
    expect(ours.details).toEqual({ readFiles: ["src/a.ts", "src/c.ts"], modifiedFiles: ["notes.md", "src/b.ts"] });
    expect(ours.summary).toContain("**Turn Context (split turn):**");
    expect(ours.summary.endsWith("<modified-files>\nnotes.md\nsrc/b.ts\n</modified-files>")).toBe(true);

    sm.appendCompaction(ours.summary, ours.firstKeptEntryId, ours.tokensBefore, ours.details);
    sm.appendMessage(user(big("third task", 9000)));
    sm.appendMessage(said(big("third answer", 9000), 12000));
    const next = prepareCompaction(sm.getBranch(), settings);
    expect(next?.previousSummary).toBe(ours.summary);
    expect(next?.fileOps).toEqual(pi.prepareCompaction(sm.getBranch() as never, settings)?.fileOps);
    const update = await generateSummary(
      next?.messagesToSummarize ?? [],
      model,
      2000,
      "test-key",
      undefined,
      undefined,
      undefined,
      next?.previousSummary,
    );
    expect(update).toBe("SUMMARY");
    const sent = JSON.stringify(server.requests.at(-1)?.messages);
    expect(sent).toContain("<previous-summary>");
    expect(server.requests.at(-1)?.max_completion_tokens ?? server.requests.at(-1)?.max_tokens).toBe(1600);
  });

  it("generateSummary fails with the provider's error instead of returning an empty summary", async () => {
    const failing = await startMockOpenAI(() => ({ status: 500 }));
    try {
      await expect(
        generateSummary([user("hello")], { ...model, baseUrl: failing.baseUrl }, 2000, "test-key"),
      ).rejects.toThrow(/summary failed/);
    } finally {
      await failing.close();
    }
  });
});

describe("branch summaries", () => {
  function branched() {
    const sm = SessionManager.inMemory("/w");
    const root = sm.appendMessage(user("root question"));
    sm.appendMessage(said("root answer"));
    const c = calls(["read", { path: "x.ts" }], ["write", { path: "y.ts", content: "" }]);
    sm.appendMessage(c);
    sm.appendMessage(result(c, 0, "x body"));
    sm.appendMessage(result(c, 1, "ok"));
    const oldLeaf = sm.appendMessage(said("explored"));
    sm.branch(root);
    const target = sm.appendMessage(user("another way"));
    return { sm, oldLeaf, target, root };
  }

  it("collectEntriesForBranchSummary and prepareBranchEntries agree with pi", () => {
    const { sm, oldLeaf, target, root } = branched();
    const ours = collectEntriesForBranchSummary(sm, oldLeaf, target);
    expect(ours).toEqual(pi.collectEntriesForBranchSummary(sm as never, oldLeaf, target));
    expect(ours.commonAncestorId).toBe(root);
    expect(ours.entries.map((e) => e.id)).not.toContain(root);
    expect(collectEntriesForBranchSummary(sm, null, target)).toEqual({ entries: [], commonAncestorId: null });
    for (const budget of [0, 5, 10, 1000]) {
      expect(prepareBranchEntries(ours.entries, budget)).toEqual(
        pi.prepareBranchEntries(ours.entries as never, budget),
      );
    }
  });

  it("generateBranchSummary summarizes through the provider and lists the branch's files like pi", async () => {
    const { sm, oldLeaf, target } = branched();
    const { entries } = collectEntriesForBranchSummary(sm, oldLeaf, target);
    const signal = new AbortController().signal;
    const ours = await generateBranchSummary(entries, { model, apiKey: "test-key", signal });
    const theirs = await pi.generateBranchSummary(entries as never, {
      model: model as never,
      apiKey: "test-key",
      signal,
    });
    expect(ours.readFiles).toEqual(theirs.readFiles);
    expect(ours.modifiedFiles).toEqual(theirs.modifiedFiles);
    expect(ours.summary).toContain("SUMMARY");
    expect(ours.summary?.endsWith("<modified-files>\ny.ts\n</modified-files>")).toBe(true);
    expect(await generateBranchSummary([], { model, apiKey: "k", signal })).toEqual(
      await pi.generateBranchSummary([], { model: model as never, apiKey: "k", signal }),
    );
    const aborted = new AbortController();
    aborted.abort();
    expect(await generateBranchSummary(entries, { model, apiKey: "k", signal: aborted.signal })).toEqual({
      aborted: true,
    });
  });
});
