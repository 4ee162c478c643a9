/**
 * AgentSession.navigateTree with pi's options and result: labels, custom summary instructions, the returned
 * summary entry, moving to the leaf as a no-op, and abortBranchSummary leaving the session where it was. Moves
 * without a summary are compared with pi's AgentSession on the same pi-written file.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@mariozechner/pi-coding-agent";
import { type Context, fauxAssistantMessage, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentSession,
  clearSessionCache,
  createAgentSession,
  SessionManager,
  SettingsManager,
} from "../src/index.js";

let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-tree-opts-"));
  clearSessionCache();
  faux = registerFauxProvider();
});
afterEach(() => {
  faux.unregister();
  rmSync(dir, { recursive: true, force: true });
});

/** A pi-written file: question → answer → follow-up → answer; returns the file and the entry ids. */
function piFile() {
  const sm = Pi.SessionManager.create(dir, join(dir, "pi-sessions"));
  const a = (text: string) =>
    ({ ...fauxAssistantMessage(text), api: faux.getModel().api, provider: faux.getModel().provider }) as never;
  const q1 = sm.appendMessage({ role: "user", content: "first question", timestamp: 1 });
  const a1 = sm.appendMessage(a("first answer"));
  const q2 = sm.appendMessage({ role: "user", content: "second question", timestamp: 2 });
  const a2 = sm.appendMessage(a("second answer"));
  return { file: sm.getSessionFile() as string, q1, a1, q2, a2 };
}

async function ours(file: string): Promise<AgentSession> {
  const { session } = await createAgentSession({
    cwd: dir,
    model: faux.getModel(),
    sessionManager: SessionManager.open(file),
    settingsManager: SettingsManager.inMemory(),
  });
  return session;
}
async function pis(file: string): Promise<Pi.AgentSession> {
  const { session } = await Pi.createAgentSession({
    cwd: dir,
    agentDir: join(dir, "pi-agent"),
    model: faux.getModel() as never,
    noTools: "all",
    sessionManager: Pi.SessionManager.open(file),
    settingsManager: Pi.SettingsManager.inMemory(),
  });
  return session;
}

describe("AgentSession.navigateTree, pi's options", () => {
  it("without a summary: the same move, editor text, label and result as pi's", async () => {
    const { file, q2, a1 } = piFile();
    const copy = join(dir, "copy.jsonl");
    copyFileSync(file, copy);
    const [a, b] = [await ours(copy), await pis(file)];
    const original = new Set(a.sessionManager.getEntries().map((e) => e.id));
    const path = (x: AgentSession | Pi.AgentSession) =>
      x.sessionManager
        .getBranch()
        .map((e) => e.id)
        .filter((id) => original.has(id));
    for (const [target, label] of [
      [q2, "retry here"],
      [a1, "checkpoint"],
    ] as const) {
      const ra = await a.navigateTree(target, { label });
      const rb = await b.navigateTree(target, { label });
      expect(ra).toEqual(rb);
      // Label entries (and pi's thinking-level entry at open) get fresh ids: compare the path through the file's own.
      expect(path(a)).toEqual(path(b));
      expect(path(a).at(-1)).toBe(a1); // q2 moves to its parent, a1 is the target itself
      expect(a.sessionManager.getLabel(target)).toBe(label);
      expect(b.sessionManager.getLabel(target)).toBe(label);
      expect(a.messages.map((m) => m.role)).toEqual(b.messages.map((m) => m.role));
    }
    expect(await a.navigateTree(a.sessionManager.getLeafId() as string)).toEqual({ cancelled: false });
    expect(await b.navigateTree(b.sessionManager.getLeafId() as string)).toEqual({ cancelled: false });
    await expect(a.navigateTree("nope")).rejects.toThrow("Entry nope not found");
    await expect(b.navigateTree("nope")).rejects.toThrow("Entry nope not found");
    a.dispose();
    b.dispose();
  });

  it("with a summary: custom instructions reach the summarizer; the labelled summary entry comes back", async () => {
    const { file, q2 } = piFile();
    const s = await ours(file);
    const prompts: string[] = [];
    faux.setResponses([
      (ctx: Context) => {
        prompts.push(JSON.stringify(ctx.messages));
        return fauxAssistantMessage("tried the second question");
      },
      (ctx: Context) => {
        prompts.push(JSON.stringify(ctx.messages));
        return fauxAssistantMessage("only the custom prompt");
      },
    ]);
    const r = await s.navigateTree(q2, { summarize: true, customInstructions: "mention colours", label: "summed" });
    expect(r).toMatchObject({ editorText: "second question", cancelled: false });
    expect(r.summaryEntry).toMatchObject({ type: "branch_summary", summary: "tried the second question" });
    expect(s.sessionManager.getLabel(r.summaryEntry?.id as string)).toBe("summed");
    expect(prompts[0]).toContain("mention colours");
    expect(prompts[0]).toContain("abandoned branch");
    expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant", "branchSummary"]);

    const first = s.sessionManager.getEntries().find((e) => e.type === "message")?.id as string;
    await s.navigateTree(first, { summarize: true, customInstructions: "Say only: CUSTOM", replaceInstructions: true });
    expect(prompts[1]).toContain("Say only: CUSTOM");
    expect(prompts[1]).not.toContain("abandoned branch");
    s.dispose();
  });

  it("abortBranchSummary stops the summary: cancelled, aborted, and the session has not moved", async () => {
    const { file, q1 } = piFile();
    const s = await ours(file);
    faux.setResponses([
      (_ctx: Context, opts) =>
        new Promise((resolve) => {
          const done = () => resolve(fauxAssistantMessage([], { stopReason: "aborted", errorMessage: "aborted" }));
          if (opts?.signal?.aborted) done();
          opts?.signal?.addEventListener("abort", done, { once: true });
          queueMicrotask(() => s.abortBranchSummary());
        }),
    ]);
    const leaf = s.sessionManager.getLeafId();
    const entries = s.sessionManager.getEntryCount();
    const r = await s.navigateTree(q1, { summarize: true });
    expect(r).toEqual({ cancelled: true, aborted: true });
    expect(s.sessionManager.getLeafId()).toBe(leaf);
    expect(s.sessionManager.getEntryCount()).toBe(entries);
    expect(s.messages).toHaveLength(4);
    s.dispose();
  });
});
