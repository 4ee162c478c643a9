import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Context, fauxAssistantMessage, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentSessionEvent,
  clearSessionCache,
  createAgentSession,
  SessionManager,
  SettingsManager,
  SUMMARIZATION_SYSTEM_PROMPT,
} from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-tree-"));
  clearSessionCache();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Answers "re: <last user text>", or a fixed summary for summarization requests. */
function echoModel() {
  const faux = registerFauxProvider();
  const respond = (ctx: Context) => {
    if (ctx.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT) return fauxAssistantMessage("SUMMARY OF EARLIER WORK");
    const last = ctx.messages.at(-1);
    const text = last?.role === "user" ? (last.content as { text: string }[])[0]?.text : "?";
    return fauxAssistantMessage(`re: ${text} ${"x".repeat(400)}`);
  };
  faux.setResponses(Array.from({ length: 20 }, () => respond));
  return faux;
}

async function makeSession(faux: ReturnType<typeof echoModel>) {
  const { session } = await createAgentSession({
    cwd: "/proj",
    model: faux.getModel(),
    sessionManager: SessionManager.create("/proj", dir),
    settingsManager: SettingsManager.inMemory({
      compaction: { enabled: true, reserveTokens: 100, keepRecentTokens: 150, mode: "default", maxHistoryShare: 0.5 },
    }),
  });
  return session;
}

describe("AgentSession tree, fork, new session and manual compaction", () => {
  it("navigating to a user message returns its text and re-asking creates a sibling branch", async () => {
    const faux = echoModel();
    const session = await makeSession(faux);
    await session.prompt("first");
    await session.prompt("second");
    const secondId = session.sessionManager
      .getEntries()
      .find(
        (e) =>
          e.type === "message" && e.message.role === "user" && JSON.stringify(e.message.content).includes("second"),
      )?.id;
    const nav = await session.navigateTree(secondId as string, { summarize: true });
    expect(nav.editorText).toBe("second");
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "branchSummary"]);
    await session.prompt("second, rephrased");
    const tree = session.sessionManager.getTree();
    const firstAnswer = session.sessionManager
      .getEntries()
      .find((e) => e.type === "message" && e.message.role === "assistant");
    expect(session.sessionManager.getChildren(firstAnswer?.id as string)).toHaveLength(2);
    expect(tree).toHaveLength(1);
    const roles = session.messages.map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "branchSummary", "user", "assistant"]);
    session.dispose();
    faux.unregister();
  });

  it("fork writes the branch to a new file that names its parent and continues there", async () => {
    const faux = echoModel();
    const session = await makeSession(faux);
    await session.prompt("one");
    const parent = session.sessionFile as string;
    const forked = session.fork() as string;
    expect(forked).not.toBe(parent);
    await session.prompt("two");
    expect(JSON.parse(readFileSync(forked, "utf8").split("\n")[0] as string).parentSession).toBe(parent);
    expect(readFileSync(parent, "utf8")).not.toContain('"two"');
    expect(session.messages).toHaveLength(4);
    session.newSession();
    expect(session.messages).toEqual([]);
    expect(session.sessionFile).not.toBe(forked);
    session.dispose();
    faux.unregister();
  });

  it("manual compact() summarizes with custom instructions and reports the reason", async () => {
    const faux = echoModel();
    const session = await makeSession(faux);
    for (const t of ["a", "b", "c", "d"]) await session.prompt(t);
    const events: AgentSessionEvent[] = [];
    session.subscribe((e) => {
      if (e.type.startsWith("compaction")) events.push(e);
    });
    const before = session.getContextUsage().tokens;
    const result = await session.compact("focus on the letters");
    expect(result.summary).toContain("SUMMARY OF EARLIER WORK");
    expect(events.map((e) => e.type)).toEqual(["compaction_start", "compaction_end"]);
    expect(events[0]).toMatchObject({ reason: "manual" });
    expect(session.messages[0]?.role).toBe("compactionSummary");
    expect(session.getContextUsage().tokens).toBeLessThan(before);
    // Reopening the file gives the same compacted context.
    const file = session.sessionFile as string;
    session.dispose();
    const reopened = SessionManager.open(file, { readOnly: true });
    expect(reopened.buildSessionContext().messages).toEqual(session.messages);
    faux.unregister();
  });
});
