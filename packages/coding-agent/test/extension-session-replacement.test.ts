/**
 * Replacing the session under extensions, as pi's AgentSessionRuntime does: `session_before_switch` (new session,
 * other file) and `session_before_fork` can cancel; a `/command`'s context replaces the session through the
 * runtime, and its `withSession` callback gets the new session's command context.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentSessionRuntime,
  type CreateAgentSessionRuntimeFactory,
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  createAgentSessionServices,
  SessionManager,
} from "../src/index.js";

interface Hooks {
  decide?: (event: { type: string; reason?: string; entryId?: string; targetSessionFile?: string }) => unknown;
  log: string[];
  withSession?: string;
}
const g = globalThis as { __replHooks?: Hooks };
let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
let agentDir: string;
let cwd: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-ext-replace-"));
  faux = registerFauxProvider();
  agentDir = join(dir, "agent");
  cwd = join(dir, "proj");
  mkdirSync(join(agentDir, "extensions"), { recursive: true });
  mkdirSync(cwd);
  writeFileSync(
    join(agentDir, "extensions", "guard.ts"),
    `export default function (api) {
  const h = () => globalThis.__replHooks;
  for (const name of ["session_before_switch", "session_before_fork"])
    api.on(name, (e) => { h().log.push(name + ":" + (e.reason ?? e.entryId)); return h().decide?.(e); });
  api.on("session_start", (e) => { h().log.push("start:" + e.reason); });
  api.on("session_shutdown", (e) => { h().log.push("shutdown:" + e.reason + ":" + (e.targetSessionFile ?? "none")); });
  api.registerCommand("fresh", { handler: async (_args, ctx) => {
    const r = await ctx.newSession({ withSession: async (next) => {
      h().withSession = next.sessionManager.getSessionId();
      await next.sendMessage({ customType: "hello", content: "sent from withSession", display: true });
    } });
    h().log.push("fresh:" + r.cancelled);
  } });
}\n`,
  );
  g.__replHooks = { log: [] };
});
afterEach(() => {
  faux.unregister();
  delete g.__replHooks;
  rmSync(dir, { recursive: true, force: true });
});

const factory: CreateAgentSessionRuntimeFactory = async (o) => {
  const services = await createAgentSessionServices({ cwd: o.cwd, agentDir: o.agentDir });
  const created = await createAgentSessionFromServices({
    services,
    sessionManager: o.sessionManager,
    model: faux.getModel(),
    ...(o.sessionStartEvent ? { sessionStartEvent: o.sessionStartEvent } : {}),
  });
  return { ...created, services, diagnostics: services.diagnostics };
};

async function start(): Promise<AgentSessionRuntime> {
  const sessionManager = SessionManager.create(cwd, join(dir, "sessions"));
  return createAgentSessionRuntime(factory, { cwd, agentDir, sessionManager });
}

describe("extensions and session replacement", () => {
  it("session_before_switch cancels a new session and a switch; the current session stays", async () => {
    const runtime = await start();
    const hooks = g.__replHooks as Hooks;
    const first = runtime.session.sessionId;
    const other = SessionManager.create(cwd, join(dir, "sessions"));
    other.appendMessage({ role: "user", content: "elsewhere", timestamp: 1 });
    const otherFile = other.getSessionFile() as string;
    other.close();
    hooks.decide = (e) => (e.type === "session_before_switch" ? { cancel: true } : undefined);
    expect(await runtime.newSession()).toEqual({ cancelled: true });
    expect(await runtime.switchSession(otherFile)).toEqual({ cancelled: true });
    expect(runtime.session.sessionId).toBe(first);
    hooks.decide = undefined;
    expect(await runtime.switchSession(otherFile)).toEqual({ cancelled: false });
    expect(runtime.session.sessionFile).toBe(otherFile);
    expect(hooks.log.filter((l) => l.startsWith("session_before_switch"))).toEqual([
      "session_before_switch:new",
      "session_before_switch:resume",
      "session_before_switch:resume",
    ]);
    // Only the switch that happened shut the old session down, naming where it continues.
    expect(hooks.log.filter((l) => l.startsWith("shutdown:"))).toEqual([`shutdown:resume:${otherFile}`]);
    await runtime.dispose();
    expect(hooks.log.at(-1)).toBe("shutdown:quit:none");
  });

  it("session_before_fork cancels a fork; without a veto the fork happens", async () => {
    faux.setResponses([fauxAssistantMessage("answer")]);
    const runtime = await start();
    const hooks = g.__replHooks as Hooks;
    await runtime.session.prompt("question");
    const userEntry = runtime.session.sessionManager
      .getEntries()
      .find((e) => e.type === "message" && e.message.role === "user");
    const file = runtime.session.sessionFile;
    hooks.decide = (e) => (e.type === "session_before_fork" ? { cancel: true } : undefined);
    expect(await runtime.fork(userEntry!.id)).toEqual({ cancelled: true });
    expect(runtime.session.sessionFile).toBe(file);
    hooks.decide = undefined;
    const forked = await runtime.fork(userEntry!.id);
    expect(forked.cancelled).toBe(false);
    expect(forked.selectedText).toBe("question");
    expect(runtime.session.sessionFile).not.toBe(file);
    expect(hooks.log).toContain(`session_before_fork:${userEntry!.id}`);
    await runtime.dispose();
  });

  it("a /command's ctx.newSession replaces the session through the runtime; withSession sees the new one", async () => {
    const runtime = await start();
    const hooks = g.__replHooks as Hooks;
    const first = runtime.session.sessionId;
    expect(await runtime.session.extensionRunner.runCommand("/fresh")).toBe(true);
    expect(hooks.log).toContain("fresh:false");
    expect(runtime.session.sessionId).not.toBe(first);
    expect(hooks.withSession).toBe(runtime.session.sessionId);
    // withSession got pi's replaced-session context: it sends into the new session.
    expect(runtime.session.messages.some((m) => m.role === "custom" && m.content === "sent from withSession")).toBe(
      true,
    );
    // The new session's commands are bound to the runtime too: a veto now cancels.
    hooks.decide = () => ({ cancel: true });
    const second = runtime.session.sessionId;
    await runtime.session.extensionRunner.runCommand("/fresh");
    expect(hooks.log.at(-1)).toBe("fresh:true");
    expect(runtime.session.sessionId).toBe(second);
    await runtime.dispose();
  });

  it("runtime.newSession's withSession gets pi's replaced-session context (it sends into the new session)", async () => {
    const runtime = await start();
    const first = runtime.session.sessionId;
    let seen: { sessionId: string; same: boolean; hasServices: boolean } | undefined;
    const r = await runtime.newSession({
      withSession: async (ctx) => {
        // pi's ReplacedSessionContext members, as a program written against pi's runtime calls them.
        seen = {
          sessionId: ctx.sessionManager.getSessionId(),
          same: ctx.session === runtime.session,
          hasServices: ctx.services.agentDir === agentDir,
        };
        await ctx.sendMessage({ customType: "note", content: "from the runtime's withSession", display: true });
      },
    });
    expect(r.cancelled).toBe(false);
    expect(runtime.session.sessionId).not.toBe(first);
    expect(seen).toEqual({ sessionId: runtime.session.sessionId, same: true, hasServices: true });
    const sent = runtime.session.messages.filter((m) => m.role === "custom");
    expect(sent.map((m) => (m as { content: unknown }).content)).toEqual(["from the runtime's withSession"]);
    await runtime.dispose();
  });
});
