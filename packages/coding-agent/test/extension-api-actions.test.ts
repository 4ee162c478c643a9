/**
 * pi's ExtensionAPI session actions on Tiller: they refuse while the extension loads, act on the session once it
 * is bound (messages, entries, name, labels, tools, commands, thinking level), flags take the host's values or
 * their defaults, a provider registered while loading is in the session's model registry, and `events` carries
 * messages between extensions.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentSessionFromServices, createAgentSessionServices, SessionManager } from "../src/index.js";

interface Seen {
  atLoad?: string;
  flags?: unknown[];
  actions?: Record<string, unknown>;
  bus?: unknown[];
}
const g = globalThis as { __apiSeen?: Seen };
let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-ext-api-"));
  faux = registerFauxProvider({ models: [{ id: "plain" }, { id: "thinker", reasoning: true }] });
  g.__apiSeen = {};
});
afterEach(() => {
  faux.unregister();
  delete g.__apiSeen;
  rmSync(dir, { recursive: true, force: true });
});

const EXTENSION = `export default function (api) {
  const seen = globalThis.__apiSeen;
  try { api.sendMessage({ customType: "early", content: "too soon", display: true }); }
  catch (err) { seen.atLoad = err.message; }
  api.registerFlag("verbose", { type: "boolean", default: false, description: "talk more" });
  api.registerFlag("target", { type: "string", default: "staging" });
  api.registerProvider("extprov", {
    baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "k", models: [{ id: "ext-model" }],
  });
  api.events.on("ping", (data) => { (seen.bus ??= []).push(data); });
  api.registerCommand("act", { description: "uses the actions", handler: async () => {
    seen.flags = [api.getFlag("verbose"), api.getFlag("target"), api.getFlag("not-mine")];
    api.appendEntry("note", { x: 1 });
    api.setSessionName("named by extension");
    const before = api.getActiveTools();
    api.setActiveTools(["read"]);
    api.setThinkingLevel("high");
    api.sendMessage({ customType: "report", content: "from the extension", display: true });
    api.events.emit("ping", "pong");
    seen.actions = {
      before, after: api.getActiveTools(), all: api.getAllTools().map((t) => t.name).sort(),
      commands: api.getCommands().map((c) => c.source + ":" + c.name),
      name: api.getSessionName(), thinking: api.getThinkingLevel(),
    };
  } });
}\n`;

describe("ExtensionAPI actions", () => {
  it("refuse while loading, then act on the bound session", async () => {
    const agentDir = join(dir, "agent");
    const cwd = join(dir, "proj");
    mkdirSync(join(agentDir, "extensions"), { recursive: true });
    mkdirSync(cwd);
    writeFileSync(join(agentDir, "extensions", "actions.ts"), EXTENSION);
    const services = await createAgentSessionServices({
      cwd,
      agentDir,
      extensionFlagValues: new Map([["verbose", true]]),
    });
    faux.setResponses([fauxAssistantMessage("ok")]);
    const { session, extensionsResult } = await createAgentSessionFromServices({
      services,
      sessionManager: SessionManager.inMemory(cwd),
      model: faux.getModel("thinker"),
      tools: ["read", "bash"],
    });
    const seen = g.__apiSeen as Seen;
    // pi's extensionsResult: the loaded extensions and the runner that runs them in this session.
    expect(extensionsResult.runner).toBe(session.extensionRunner);
    expect(extensionsResult.extensions.map((e) => e.path)).toEqual([join(agentDir, "extensions", "actions.ts")]);
    expect(extensionsResult.runtime).toBe(session.extensionRunner.runtime);
    expect(seen.atLoad).toMatch(/cannot be called during extension loading/);
    expect(session.modelRegistry.find("extprov", "ext-model")?.baseUrl).toBe("http://127.0.0.1:9/v1");

    expect(await session.extensionRunner.runCommand("/act")).toBe(true);
    expect(seen.flags).toEqual([true, "staging", undefined]);
    expect(seen.actions).toMatchObject({
      before: ["read", "bash"],
      after: ["read"],
      commands: ["extension:act"],
      name: "named by extension",
      thinking: "high",
    });
    expect(seen.actions?.all).toEqual(expect.arrayContaining(["bash", "edit", "read", "write"]));
    expect(seen.bus).toEqual(["pong"]);
    expect(session.getActiveToolNames()).toEqual(["read"]);
    expect(session.sessionManager.getSessionName()).toBe("named by extension");
    const entries = session.sessionManager.getEntries();
    expect(entries.some((e) => e.type === "custom" && e.customType === "note")).toBe(true);
    expect(
      session.messages.some(
        (m) => m.role === "custom" && m.customType === "report" && m.content === "from the extension",
      ),
    ).toBe(true);
    expect(session.extensionRunner.getFlags().get("verbose")).toMatchObject({
      type: "boolean",
      description: "talk more",
    });
    session.extensionRunner.setFlagValue("target", "prod");
    expect(session.extensionRunner.getFlagValues().get("target")).toBe("prod");
    session.dispose();
  });
});
