/**
 * The context at a leaf takes the latest thinking level, the latest model (a model change or an assistant message,
 * whichever comes later) and the latest compaction on the path from the root. Tiller finds them scanning back from
 * the leaf; pi-coding-agent 0.73.1 replays the path from the root. On pi-written session trees full of competing
 * changes, abandoned branches and compactions, the context Tiller builds at every entry of the reopened file must
 * be the one pi builds there.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import type { AssistantMessage, UserMessage } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearSessionCache, SessionManager } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-latest-on-path-"));
  clearSessionCache();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const usage = {
  input: 10,
  output: 2,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 12,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const user = (text: string, t: number): UserMessage => ({ role: "user", content: text, timestamp: t });
const assistant = (text: string, provider: string, model: string, t: number): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "openai-completions",
  provider,
  model,
  usage,
  stopReason: "stop",
  timestamp: t,
});

/** Deterministic PRNG (mulberry32), so a failure names a reproducible seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A pi-written session tree of `steps` random appends, now and then branching back to an earlier entry (with
 * `branching: false`, one unbranched chain).
 */
function piTree(seed: number, steps: number, branching = true): { file: string; ids: string[] } {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const pi = PiSessionManager.create("/work/proj", dir);
  const ids: string[] = [];
  for (let i = 0; i < steps; i++) {
    if (branching && ids.length > 3 && rand() < 0.12) pi.branch(pick(ids));
    const kind = rand();
    const path = pi.getBranch();
    let id: string;
    if (kind < 0.3) id = pi.appendMessage(user(`u${i}`, i));
    else if (kind < 0.5) id = pi.appendMessage(assistant(`a${i}`, pick(["openai", "anthropic"]), `m${i}`, i));
    else if (kind < 0.6) id = pi.appendThinkingLevelChange(pick(["low", "medium", "high"]));
    else if (kind < 0.7) id = pi.appendModelChange(pick(["google", "xai"]), `mc${i}`);
    else if (kind < 0.8 && path.length > 0) id = pi.appendCompaction(`summary ${i}`, pick(path).id, 1000 + i);
    else if (kind < 0.87) id = pi.appendCustomMessageEntry("note", `note ${i}`, true);
    else if (kind < 0.93 && path.length > 0)
      id = branching ? pi.branchWithSummary(pick(path).id, `left branch ${i}`) : pi.appendCustomEntry("state", { i });
    else id = pi.appendCustomEntry("state", { i });
    ids.push(id);
  }
  // pi writes its file once an assistant message is on it; end on one so every tree is on disk.
  ids.push(pi.appendMessage(assistant("last", "openai", "final", steps)));
  return { file: pi.getSessionFile() as string, ids };
}

describe("context at every leaf of a branched session: latest model, thinking level and compaction", () => {
  it("matches pi-coding-agent 0.73.1 at every entry of 12 random pi-written trees", () => {
    for (let seed = 1; seed <= 12; seed++) {
      const { file, ids } = piTree(seed, 120);
      const pi = PiSessionManager.open(file);
      const sm = SessionManager.open(file, { readOnly: true });
      expect(sm.getEntries().map((e) => e.id)).toEqual(ids);
      let compactedPaths = 0;
      for (const id of ids) {
        pi.branch(id);
        sm.branch(id);
        const theirs = JSON.parse(JSON.stringify(pi.buildSessionContext()));
        const ours = sm.buildSessionContext();
        expect({ seed, leaf: id, context: ours }).toEqual({ seed, leaf: id, context: theirs });
        if (sm.getBranch().some((e) => e.type === "compaction")) compactedPaths++;
      }
      // The trees exercise what the scan decides: compacted paths and paths with none.
      expect(compactedPaths).toBeGreaterThan(0);
      expect(compactedPaths).toBeLessThan(ids.length);
      sm.close();
    }
  });

  it("an unbranched pi-written chain, reopened and then appended to by Tiller: the context at its end is pi's", () => {
    // A chain's context comes from the positions noted while its entries were read and appended, not a scan.
    let compacted = 0;
    for (let seed = 101; seed <= 112; seed++) {
      const { file, ids } = piTree(seed, 150, false);
      const sm = SessionManager.open(file);
      expect(sm.getBranch().map((e) => e.id)).toEqual(ids);
      const theirs = (): unknown => JSON.parse(JSON.stringify(PiSessionManager.open(file).buildSessionContext()));
      expect({ seed, context: sm.buildSessionContext() }).toEqual({ seed, context: theirs() });
      if (sm.getBranch().some((e) => e.type === "compaction")) compacted++;
      const rand = rng(seed);
      for (let i = 0; i < 12; i++) {
        const kind = rand();
        const path = sm.getBranch();
        if (kind < 0.25) sm.appendThinkingLevelChange(["low", "high"][i % 2] as string);
        else if (kind < 0.5) sm.appendModelChange("xai", `grok-${i}`);
        else if (kind < 0.7) sm.appendMessage(assistant(`t${i}`, "anthropic", `claude-${i}`, 1000 + i));
        else if (kind < 0.85)
          sm.appendCompaction(`tiller summary ${i}`, (path[path.length - 3] as { id: string }).id, 9);
        else sm.appendMessage(user(`tu${i}`, 1000 + i));
        expect({ seed, i, context: sm.buildSessionContext() }).toEqual({ seed, i, context: theirs() });
      }
      sm.close();
    }
    expect(compacted).toBeGreaterThan(0);
  });

  it("a long chain whose model and thinking level were set early: the scan reaches back to the root", () => {
    const sm = SessionManager.create("/p", dir);
    sm.appendThinkingLevelChange("high");
    sm.appendModelChange("google", "gemini-x");
    for (let i = 0; i < 500; i++) sm.appendMessage(user(`q${i}`, i));
    const file = sm.getSessionFile() as string;
    sm.close();
    const re = SessionManager.open(file, { readOnly: true });
    const ctx = re.buildSessionContext();
    expect(ctx.thinkingLevel).toBe("high");
    expect(ctx.model).toEqual({ provider: "google", modelId: "gemini-x" });
    expect(ctx.messages).toHaveLength(500);
    // A later assistant message overrides the model change; an earlier one does not.
    re.close();
    const again = SessionManager.open(file);
    again.appendMessage(assistant("a", "anthropic", "claude-y", 501));
    expect(again.buildSessionContext().model).toEqual({ provider: "anthropic", modelId: "claude-y" });
    again.appendModelChange("xai", "grok-z");
    expect(again.buildSessionContext().model).toEqual({ provider: "xai", modelId: "grok-z" });
    again.close();
  });
});
