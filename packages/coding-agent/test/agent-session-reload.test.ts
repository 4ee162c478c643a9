/**
 * pi's `AgentSession.reload()`, run side by side with pi's: the extensions hear `session_shutdown` then
 * `session_start` (reason `reload`), their factories run again (an edited extension takes effect), flag values
 * and the host's bindings carry over, the old extension's tool leaves the session and the new one joins it
 * active, while the tools the user switched off stay off.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@mariozechner/pi-coding-agent";
import { registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createAgentSessionFromServices,
  createAgentSessionServices,
  createNoUIContext,
  SessionManager,
} from "../src/index.js";

const g = globalThis as { __reloadLog?: string[]; __reloadTool?: string };
let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-reload-"));
  faux = registerFauxProvider();
});
afterEach(() => {
  faux.unregister();
  delete g.__reloadLog;
  delete g.__reloadTool;
  rmSync(dir, { recursive: true, force: true });
});

/** An extension whose tool is named by `globalThis.__reloadTool` at load time (what an edit would change). */
const EXTENSION = `export default function (api) {
  const name = globalThis.__reloadTool;
  const log = (s) => globalThis.__reloadLog.push(name + ":" + s);
  api.registerFlag("mode", { type: "string", description: "a mode" });
  api.registerTool({ name, label: name, description: "tool " + name, parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: name }], details: undefined }) });
  api.on("session_start", (e) => log("start:" + e.reason));
  api.on("session_shutdown", (e) => log("shutdown:" + e.reason));
  api.registerCommand("where", { handler: async (_args, ctx) => {
    log("flag=" + api.getFlag("mode"));
    log("confirm=" + (await ctx.ui.confirm("Sure?", "")));
  } });
}\n`;

/** The part of pi's and Tiller's sessions this test drives (both have these members). */
interface Reloadable {
  reload(): Promise<void>;
  getActiveToolNames(): string[];
  setActiveToolsByName(names: string[]): void;
  getAllTools(): Array<{ name: string }>;
  bindExtensions(bindings: { uiContext?: unknown }): Promise<void>;
  extensionRunner: {
    setFlagValue(name: string, value: string): void;
    getCommand(name: string): { handler: (args: string, ctx: never) => Promise<void> } | undefined;
    createCommandContext(): unknown;
  };
  dispose(): void;
}

async function scenario(open: (cwd: string, agentDir: string) => Promise<Reloadable>) {
  const agentDir = join(dir, "agent");
  const cwd = join(dir, "proj");
  mkdirSync(join(agentDir, "extensions"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(agentDir, "extensions", "gen.ts"), EXTENSION);
  g.__reloadLog = [];
  g.__reloadTool = "alpha";
  const session = await open(cwd, agentDir);
  await session.bindExtensions({ uiContext: { ...createNoUIContext(), confirm: async () => true } });
  session.extensionRunner.setFlagValue("mode", "fast");
  session.setActiveToolsByName(session.getActiveToolNames().filter((n) => n !== "bash"));
  const before = session.getActiveToolNames();

  g.__reloadTool = "beta";
  await session.reload();
  const runner = session.extensionRunner;
  await runner.getCommand("where")?.handler("", runner.createCommandContext() as never);
  const out = {
    log: [...(g.__reloadLog ?? [])].filter((l) => !l.endsWith("start:startup")),
    before,
    after: session.getActiveToolNames(),
    known: session
      .getAllTools()
      .map((t) => t.name)
      .filter((n) => n === "alpha" || n === "beta"),
  };
  session.dispose();
  return out;
}

describe("AgentSession.reload", () => {
  it("re-runs the extensions as pi does: events, flags, host UI and tools carried over", async () => {
    const ours = await scenario(async (cwd, agentDir) => {
      const services = await createAgentSessionServices({ cwd, agentDir });
      const { session } = await createAgentSessionFromServices({
        services,
        sessionManager: SessionManager.inMemory(cwd),
        model: faux.getModel(),
      });
      return session as unknown as Reloadable;
    });
    rmSync(dir, { recursive: true, force: true });
    const pi = await scenario(async (cwd, agentDir) => {
      const services = await Pi.createAgentSessionServices({ cwd, agentDir });
      const { session } = await Pi.createAgentSessionFromServices({
        services,
        sessionManager: Pi.SessionManager.inMemory(cwd),
        model: faux.getModel() as never,
      });
      return session as unknown as Reloadable;
    });

    expect(ours.log).toEqual(["alpha:shutdown:reload", "beta:start:reload", "beta:flag=fast", "beta:confirm=true"]);
    expect(ours.after).toEqual([...ours.before.filter((n) => n !== "alpha"), "beta"]);
    expect(ours.after).not.toContain("bash");
    expect(ours.known).toEqual(["beta"]);
    // pi's session behaves the same (its built-in tools are pi's four, Tiller has two more).
    expect(pi.log).toEqual(ours.log);
    expect(pi.after).toEqual(pi.before.filter((n) => n !== "alpha").concat("beta"));
    expect(pi.known).toEqual(ours.known);
  });
});
