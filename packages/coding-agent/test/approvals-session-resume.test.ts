/**
 * A pending approval survives the process: the child's session waits for a decision and is SIGKILLed; a new
 * process opens the session file, resumes with the stored approval, and the command runs, its result is appended
 * exactly once, and the run completes.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PendingApproval } from "@tiller/agent";
import { fauxAssistantMessage, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXEC_TOOL_NAMES, ExecApprovals, execApprovalRule } from "../src/approvals/index.js";
import { clearSessionCache, createAgentSession, SessionManager, SettingsManager } from "../src/index.js";
import { buildToolPipeline, createBashTool } from "../src/tools/index.js";

const here = dirname(fileURLToPath(import.meta.url));
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-approval-resume-"));
  clearSessionCache();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function killedWhileWaiting(): Promise<{ file: string; approval: PendingApproval }> {
  const child = spawn(
    process.execPath,
    ["--conditions=tiller-source", "--import", "tsx", join(here, "approvals-resume-child.ts"), dir],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const stored = await new Promise<{ file: string; approval: PendingApproval }>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.on("exit", (code) => reject(new Error(`child exited ${code}`)));
  });
  const exited = new Promise((r) => child.on("exit", r));
  child.kill("SIGKILL");
  await exited;
  return stored;
}

describe("resuming a pending approval after a crash", () => {
  it("allow-once after the restart runs the command once and completes the run", async () => {
    const { file, approval } = await killedWhileWaiting();
    expect(existsSync(join(dir, "resumed.txt"))).toBe(false);
    expect(approval.request.meta).toMatchObject({ kind: "exec" });

    const faux = registerFauxProvider();
    faux.setResponses([fauxAssistantMessage("the file is there")]);
    const approvals = ExecApprovals.load(join(dir, "exec-approvals.json"));
    const tools = buildToolPipeline({
      base: [createBashTool(dir)],
      approvals: { tools: EXEC_TOOL_NAMES, rule: execApprovalRule(approvals, { cwd: dir, canAsk: true }) },
    });
    const { session } = await createAgentSession({
      cwd: dir,
      model: faux.getModel(),
      tools,
      sessionManager: SessionManager.open(file),
      settingsManager: SettingsManager.inMemory(),
    });
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    await session.resumeToolCalls({ approvals: [{ approval, decision: "allow-once", by: "operator" }] });
    expect(existsSync(join(dir, "resumed.txt"))).toBe(true);
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    session.dispose();

    // On disk: the tool result exactly once, then the final answer.
    const entries = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; message?: { role: string; toolCallId?: string } });
    const results = entries.filter((e) => e.type === "message" && e.message?.role === "toolResult");
    expect(results).toHaveLength(1);
    expect(results[0]!.message!.toolCallId).toBe(approval.toolCall.id);
    const reopened = SessionManager.open(file);
    expect(reopened.buildSessionContext().messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    reopened.close();
    faux.unregister();
  }, 30_000);
});
