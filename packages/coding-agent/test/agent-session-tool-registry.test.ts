/**
 * AgentSession's tool registry (pi's `getAllTools`, `getToolDefinition`, `setActiveToolsByName`): every tool the
 * session may use — built-in, the program's, an extension's — with the same names and sources as pi's session
 * lists for the same setup; switching tools by name changes what the model is offered and the system prompt.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@mariozechner/pi-coding-agent";
import { type Context, fauxAssistantMessage, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createAgentSession,
  createAgentSessionFromServices,
  createAgentSessionServices,
  defineTool,
  SessionManager,
  SettingsManager,
} from "../src/index.js";
import { bareContext } from "./tool-helpers.js";

let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-tool-registry-"));
  faux = registerFauxProvider();
});
afterEach(() => {
  faux.unregister();
  rmSync(dir, { recursive: true, force: true });
});

const stamp = {
  name: "stamp",
  label: "stamp",
  description: "stamps a date",
  parameters: { type: "object", properties: {} } as never,
  execute: async () => ({ content: [{ type: "text" as const, text: "stamped" }], details: undefined }),
};

async function both() {
  const agentDir = join(dir, "agent");
  const cwd = join(dir, "proj");
  mkdirSync(join(agentDir, "extensions"), { recursive: true });
  mkdirSync(cwd);
  writeFileSync(
    join(agentDir, "extensions", "ping.ts"),
    `export default function (api) {
  api.registerTool({ name: "ping", label: "ping", description: "answers pong", parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: "pong" }], details: undefined }) });
}\n`,
  );
  const services = await createAgentSessionServices({ cwd, agentDir });
  const { session: ours } = await createAgentSessionFromServices({
    services,
    sessionManager: SessionManager.inMemory(cwd),
    model: faux.getModel(),
    customTools: [defineTool(stamp)],
  });
  const piServices = await Pi.createAgentSessionServices({ cwd, agentDir });
  const { session: pi } = await Pi.createAgentSessionFromServices({
    services: piServices,
    sessionManager: Pi.SessionManager.inMemory(cwd),
    model: faux.getModel() as never,
    customTools: [stamp as never],
  });
  return { ours, pi, agentDir };
}

const listing = (
  tools: ReadonlyArray<{ name: string; description: string; sourceInfo: { path: string; source: string } }>,
) =>
  tools
    .map((t) => ({ name: t.name, source: t.sourceInfo.source, path: t.sourceInfo.path }))
    .sort((a, b) => a.name.localeCompare(b.name));

describe("AgentSession's tool registry", () => {
  it("lists built-in, program and extension tools with pi's names, paths and sources, active or not", async () => {
    const { ours, pi } = await both();
    // Tiller adds two built-ins (exec, process); an extension's tool carries its file but not pi's loader metadata.
    const ourList = listing(ours.getAllTools()).filter((t) => t.name !== "exec" && t.name !== "process");
    const piList = listing(pi.getAllTools());
    const noSource = (l: typeof piList) => l.map((t) => (t.name === "ping" ? { ...t, source: "?" } : t));
    expect(noSource(ourList)).toEqual(noSource(piList));
    expect(ourList.find((t) => t.name === "ping")?.source).toBe("local");
    expect(ours.getActiveToolNames().sort()).toEqual(pi.getActiveToolNames().sort());
    expect(ours.getAllTools().map((t) => t.name)).toContain("grep");
    expect(ours.getActiveToolNames()).not.toContain("grep");
    const def = ours.getToolDefinition("stamp");
    expect(def?.description).toBe("stamps a date");
    expect(ours.getToolDefinition("nope")).toBeUndefined();
    expect(pi.getToolDefinition("nope")).toBeUndefined();
    ours.dispose();
    pi.dispose();
  });

  it("setActiveToolsByName switches tools as pi does: unknown names ignored, prompt and model see the change", async () => {
    const { ours, pi } = await both();
    for (const s of [ours, pi]) s.setActiveToolsByName(["grep", "ping", "no-such-tool"]);
    expect(ours.getActiveToolNames()).toEqual(pi.getActiveToolNames());
    expect(ours.getActiveToolNames()).toEqual(["grep", "ping"]);
    expect(ours.systemPrompt).toContain("- grep:");
    expect(ours.systemPrompt).not.toContain("- bash:");
    let offered: string[] = [];
    faux.setResponses([
      (ctx: Context) => {
        offered = (ctx.tools ?? []).map((t) => t.name);
        return fauxAssistantMessage("ok");
      },
    ]);
    await ours.prompt("which tools?");
    expect(offered).toEqual(["grep", "ping"]);
    ours.dispose();
    pi.dispose();
  });

  it("a session given plain AgentTools lists them as the program's; setTools adds new ones", async () => {
    const { session } = await createAgentSession({
      cwd: dir,
      model: faux.getModel(),
      tools: [stamp],
      sessionManager: SessionManager.inMemory(dir),
      settingsManager: SettingsManager.inMemory(),
    });
    expect(listing(session.getAllTools())).toEqual([{ name: "stamp", source: "sdk", path: "<sdk:stamp>" }]);
    session.setTools([{ ...stamp, name: "other" }]);
    expect(session.getAllTools().map((t) => t.name)).toEqual(["stamp", "other"]);
    session.setActiveToolsByName(["stamp"]);
    expect(session.getActiveToolNames()).toEqual(["stamp"]);
    const result = await session.getToolDefinition("stamp")?.execute("id", {}, undefined, undefined, bareContext(dir));
    expect(result?.content).toEqual([{ type: "text", text: "stamped" }]);
    session.dispose();
  });
});
