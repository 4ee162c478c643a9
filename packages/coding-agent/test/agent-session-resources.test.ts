/**
 * AgentSession's resource accessors (pi's `resourceLoader`, `promptTemplates`, `extensionRunner`,
 * `hasExtensionHandlers`): a session built from services sees the loader's prompt templates and extensions, the
 * same templates and handler answers pi's session gives for the same agent directory.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@mariozechner/pi-coding-agent";
import { registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createAgentSession,
  createAgentSessionFromServices,
  createAgentSessionServices,
  DefaultResourceLoader,
  SessionManager,
  SettingsManager,
} from "../src/index.js";

let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-resources-"));
  faux = registerFauxProvider();
});
afterEach(() => {
  faux.unregister();
  rmSync(dir, { recursive: true, force: true });
});

describe("AgentSession: pi's resource accessors", () => {
  it("expose the loader's prompt templates and extensions, as pi's session does", async () => {
    const agentDir = join(dir, "agent");
    const cwd = join(dir, "proj");
    mkdirSync(join(agentDir, "prompts"), { recursive: true });
    mkdirSync(join(agentDir, "extensions"), { recursive: true });
    mkdirSync(cwd);
    writeFileSync(
      join(agentDir, "prompts", "review.md"),
      "---\ndescription: Review the diff\n---\nReview $1 carefully.\n",
    );
    writeFileSync(
      join(agentDir, "extensions", "hooks.ts"),
      "export default function (api) { api.on('session_start', () => {}); api.on('turn_end', () => {}); }\n",
    );
    const services = await createAgentSessionServices({ cwd, agentDir });
    const { session } = await createAgentSessionFromServices({
      services,
      sessionManager: SessionManager.inMemory(cwd),
      model: faux.getModel(),
    });
    const piServices = await Pi.createAgentSessionServices({ cwd, agentDir });
    const { session: pi } = await Pi.createAgentSessionFromServices({
      services: piServices,
      sessionManager: Pi.SessionManager.inMemory(cwd),
      model: faux.getModel() as never,
    });

    expect(session.resourceLoader).toBe(services.resourceLoader);
    const templates = (s: { promptTemplates: ReadonlyArray<{ name: string; description: string; content: string }> }) =>
      s.promptTemplates.map((t) => ({ name: t.name, description: t.description, content: t.content.trim() }));
    expect(templates(session)).toEqual(templates(pi));
    expect(templates(session)).toEqual([
      { name: "review", description: "Review the diff", content: "Review $1 carefully." },
    ]);
    for (const event of ["session_start", "turn_end", "tool_call", "no_such_event"]) {
      expect(session.hasExtensionHandlers(event), event).toBe(pi.hasExtensionHandlers(event));
    }
    expect(session.hasExtensionHandlers("turn_end")).toBe(true);
    expect(session.extensionRunner).toBe(services.resourceLoader.getExtensions().runner);
    expect(session.extensionRunner.extensions).toHaveLength(1);
    session.dispose();
    pi.dispose();
  });

  it("without a loader: no templates, and an empty runner that handles nothing", async () => {
    const { session, extensionsResult } = await createAgentSession({
      cwd: dir,
      model: faux.getModel(),
      sessionManager: SessionManager.inMemory(dir),
      settingsManager: SettingsManager.inMemory(),
    });
    expect(session.promptTemplates).toEqual([]);
    expect(session.extensionRunner.extensions).toEqual([]);
    expect(session.hasExtensionHandlers("session_start")).toBe(false);
    // A loader with pi's members that loads nothing (pi's sessions always have one).
    const loader = session.resourceLoader;
    expect(loader.getSkills()).toEqual({ skills: [], diagnostics: [] });
    expect(loader.getPrompts()).toEqual({ prompts: [], diagnostics: [] });
    expect(loader.getThemes()).toEqual({ themes: [], diagnostics: [] });
    expect(loader.getAgentsFiles()).toEqual({ agentsFiles: [] });
    expect(loader.getSystemPrompt()).toBeUndefined();
    expect(loader.getAppendSystemPrompt()).toEqual([]);
    const loaded = loader.getExtensions();
    expect([loaded.extensions, loaded.errors]).toEqual([[], []]);
    expect(loaded.runner).toBe(session.extensionRunner);
    expect(extensionsResult.runtime).toBe(session.extensionRunner.runtime);
    loader.extendResources({ skillPaths: [{ path: join(dir, "skills") }] });
    await loader.reload();
    expect(loader.getSkills().skills).toEqual([]);
    session.dispose();
  });

  it("without a loader: the loader reports the extensions its host hooked in", async () => {
    const host = new DefaultResourceLoader({
      cwd: dir,
      agentDir: join(dir, "agent-host"),
      extensionFactories: [(pi) => pi.on("session_start", () => {})],
    });
    await host.reload();
    const runner = host.getExtensions().runner;
    const { session } = await createAgentSession({
      cwd: dir,
      model: faux.getModel(),
      sessionManager: SessionManager.inMemory(dir),
      settingsManager: SettingsManager.inMemory(),
    });
    // What the CLI does: it loads the extensions itself and hooks their runner into the session.
    session.useExtensionHooks(runner);
    const loaded = session.resourceLoader.getExtensions();
    expect(loaded.extensions.map((e) => e.path)).toEqual(["<factory 1>"]);
    expect(loaded.runner).toBe(runner);
    expect(session.hasExtensionHandlers("session_start")).toBe(true);
    session.dispose();
  });
});
