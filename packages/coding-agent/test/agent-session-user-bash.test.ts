/**
 * AgentSession.executeBash (pi's `!cmd`): a command the user runs directly becomes a `bashExecution` message of
 * the session, with the same output, exit code, truncation and cancellation as pi's AgentSession reports for the
 * same command; while the agent runs it waits and joins the transcript before the next prompt.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@mariozechner/pi-coding-agent";
import { fauxAssistantMessage, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentSession,
  type BashExecutionMessage,
  convertToLlm,
  createAgentSession,
  SessionManager,
  SettingsManager,
} from "../src/index.js";

let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-user-bash-"));
  faux = registerFauxProvider();
});
afterEach(() => {
  faux.unregister();
  rmSync(dir, { recursive: true, force: true });
});

async function sessions(
  settings: { shellCommandPrefix?: string } = {},
): Promise<{ ours: AgentSession; pi: Pi.AgentSession }> {
  const { session: ours } = await createAgentSession({
    cwd: dir,
    model: faux.getModel(),
    sessionManager: SessionManager.inMemory(dir),
    settingsManager: SettingsManager.inMemory(settings),
  });
  const { session: pi } = await Pi.createAgentSession({
    cwd: dir,
    agentDir: join(dir, "pi-agent"),
    model: faux.getModel() as never,
    noTools: "all",
    sessionManager: Pi.SessionManager.inMemory(dir),
    settingsManager: Pi.SettingsManager.inMemory(settings),
  });
  return { ours, pi };
}

const lastMessage = (s: { messages: readonly unknown[] }) => {
  const { timestamp: _t, fullOutputPath: _f, ...rest } = s.messages.at(-1) as BashExecutionMessage;
  return rest;
};

describe("AgentSession.executeBash", () => {
  it("reports output, exit code and the recorded message as pi does; chunks stream as they come", async () => {
    const { ours, pi } = await sessions({ shellCommandPrefix: "export GREETING=hi" });
    const command = "echo $GREETING; printf 'two\\r\\n\\033[31mred\\033[0m\\n'; echo oops >&2; exit 3";
    const chunks: string[] = [];
    const a = await ours.executeBash(command, (c) => chunks.push(c));
    const b = await pi.executeBash(command);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ exitCode: 3, cancelled: false, truncated: false });
    expect(a.output).toContain("hi\ntwo\nred\n");
    expect(chunks.join("")).toBe(a.output);
    expect(lastMessage(ours)).toEqual(lastMessage(pi));
    expect(lastMessage(ours)).toMatchObject({ role: "bashExecution", command, exitCode: 3 });
    const entry = ours.sessionManager.getEntries().at(-1);
    expect(entry?.type === "message" && entry.message.role).toBe("bashExecution");
    expect(ours.isBashRunning).toBe(false);
    ours.dispose();
    pi.dispose();
  });

  it("keeps the last 2,000 lines of a long output and the whole of it in a file", async () => {
    const { ours, pi } = await sessions();
    const a = await ours.executeBash("seq 1 6000");
    const b = await pi.executeBash("seq 1 6000");
    expect(a.truncated).toBe(true);
    expect(b.truncated).toBe(true);
    // pi counts the empty string after the final newline as one of its 2,000 lines; Tiller keeps 2,000 real ones.
    expect(a.output.trimEnd().endsWith(b.output.trimEnd())).toBe(true);
    expect(a.output.trimEnd().split("\n")).toEqual(Array.from({ length: 2000 }, (_, i) => String(4001 + i)));
    expect(a.fullOutputPath && existsSync(a.fullOutputPath)).toBe(true);
    expect(readFileSync(a.fullOutputPath as string, "utf8").split("\n")).toHaveLength(6001);
    ours.dispose();
    pi.dispose();
  });

  it("abortBash kills the command: cancelled, no exit code, as pi", async () => {
    const { ours, pi } = await sessions();
    const run = async (s: AgentSession | Pi.AgentSession) => {
      const result = s.executeBash("echo started; sleep 30", (chunk) => {
        if (chunk.includes("started")) s.abortBash();
      });
      expect(s.isBashRunning).toBe(true);
      return result;
    };
    const started = Date.now();
    const a = await run(ours);
    const b = await run(pi);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ cancelled: true, exitCode: undefined });
    expect(lastMessage(ours)).toEqual(lastMessage(pi));
    ours.dispose();
    pi.dispose();
  });

  it("excludeFromContext keeps the command in the session but away from the model", async () => {
    const { ours } = await sessions();
    await ours.executeBash("echo secret", undefined, { excludeFromContext: true });
    await ours.executeBash("echo shared");
    const llm = convertToLlm(ours.messages);
    expect(JSON.stringify(llm)).toContain("shared");
    expect(JSON.stringify(llm)).not.toContain("secret");
    expect(ours.messages.filter((m) => m.role === "bashExecution")).toHaveLength(2);
    ours.dispose();
  });

  it("a command finished during a run waits, then joins the transcript before the next prompt", async () => {
    const { ours } = await sessions();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    faux.setResponses([
      async () => {
        await gate;
        return fauxAssistantMessage("first");
      },
      fauxAssistantMessage("second"),
    ]);
    const running = ours.prompt("go");
    await new Promise<void>((resolve) => {
      const off = ours.subscribe((e) => {
        if (e.type === "turn_start") {
          off();
          resolve();
        }
      });
    });
    await ours.executeBash("echo during");
    expect(ours.hasPendingBashMessages).toBe(true);
    expect(ours.messages.some((m) => m.role === "bashExecution")).toBe(false);
    release();
    await running;
    expect(ours.hasPendingBashMessages).toBe(true);
    await ours.prompt("next");
    expect(ours.hasPendingBashMessages).toBe(false);
    expect(ours.messages.map((m) => m.role)).toEqual(["user", "assistant", "bashExecution", "user", "assistant"]);
    const fromFile = ours.sessionManager.buildSessionContext().messages.map((m) => m.role);
    expect(fromFile).toEqual(ours.messages.map((m) => m.role));
    ours.dispose();
  });
});
