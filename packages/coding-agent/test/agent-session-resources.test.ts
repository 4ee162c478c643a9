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
    const { session } = await createAgentSession({
      cwd: dir,
      model: faux.getModel(),
      sessionManager: SessionManager.inMemory(dir),
      settingsManager: SettingsManager.inMemory(),
    });
    expect(session.resourceLoader).toBeUndefined();
    expect(session.promptTemplates).toEqual([]);
    expect(session.extensionRunner.extensions).toEqual([]);
    expect(session.hasExtensionHandlers("session_start")).toBe(false);
    session.dispose();
  });
});
