/**
 * ExtensionRunner's pi members (`getExtensionPaths`, `getAllRegisteredTools`, `getToolDefinition`,
 * `getRegisteredCommands`, `getCommand`, `hasUI`, `emitError`): the runner of a session built from services answers as pi's runner does for the same extensions.
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
  type ExtensionError,
  extensionRunnerOf,
  SessionManager,
} from "../src/index.js";

let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-runner-pi-"));
  faux = registerFauxProvider();
});
afterEach(() => {
  faux.unregister();
  rmSync(dir, { recursive: true, force: true });
});

const tool = (name: string, description: string) =>
  `api.registerTool({ name: "${name}", label: "${name}", description: "${description}", parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: "${name}" }], details: undefined }) });`;

describe("ExtensionRunner: pi's members", () => {
  it("lists extension paths and registered tools, and finds definitions, as pi's runner does", async () => {
    const agentDir = join(dir, "agent");
    const cwd = join(dir, "proj");
    mkdirSync(join(agentDir, "extensions"), { recursive: true });
    mkdirSync(cwd);
    writeFileSync(
      join(agentDir, "extensions", "a.ts"),
      `export default function (api) { ${tool("alpha", "first tool")} }\n`,
    );
    writeFileSync(
      join(agentDir, "extensions", "b.ts"),
      `export default function (api) { ${tool("beta", "second tool")}
  api.registerCommand("greet", { description: "says hi", handler: async (args) => { globalThis.__greeted = args; } }); }\n`,
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
    const ours = session.extensionRunner;
    const theirs = pi.extensionRunner;
    expect(ours.getExtensionPaths().sort()).toEqual(theirs.getExtensionPaths().sort());
    const tools = (r: {
      getAllRegisteredTools(): Array<{
        definition: { name: string; description: string };
        sourceInfo: { path: string };
      }>;
    }) =>
      r
        .getAllRegisteredTools()
        .map((t) => [t.definition.name, t.definition.description, t.sourceInfo.path])
        .sort();
    expect(tools(ours)).toEqual(tools(theirs));
    expect(ours.getToolDefinition("beta")?.description).toBe(theirs.getToolDefinition("beta")?.description);
    expect(ours.getToolDefinition("nope")).toBe(theirs.getToolDefinition("nope"));
    const run = await ours.getToolDefinition("alpha")?.execute("id", {}, undefined, undefined, ours.createContext());
    expect(run?.content).toEqual([{ type: "text", text: "alpha" }]);
    const commands = (r: {
      getRegisteredCommands(): Array<{
        name: string;
        invocationName: string;
        description?: string;
        sourceInfo: { path: string };
      }>;
    }) => r.getRegisteredCommands().map((c) => [c.name, c.invocationName, c.description, c.sourceInfo.path]);
    expect(commands(ours)).toEqual(commands(theirs));
    expect(commands(ours)).toEqual([["greet", "greet", "says hi", join(agentDir, "extensions", "b.ts")]]);
    await ours.getCommand("greet")?.handler("world", ours.createCommandContext());
    expect((globalThis as { __greeted?: string }).__greeted).toBe("world");
    expect(ours.getCommand("nope")).toBe(theirs.getCommand("nope"));
    expect(ours.hasUI()).toBe(theirs.hasUI());
    expect(ours.hasUI()).toBe(false);
    session.dispose();
    pi.dispose();
  });

  it("emitError reaches the error listeners, and waits for the first one when none is attached", async () => {
    const services = await createAgentSessionServices({ cwd: dir, agentDir: join(dir, "agent-empty") });
    const runner = extensionRunnerOf(services.resourceLoader.getExtensions());
    const error: ExtensionError = { extensionPath: "/x.ts", event: "turn_end", error: "boom" };
    runner.emitError(error);
    const seen: ExtensionError[] = [];
    runner.onError((e) => seen.push(e));
    expect(seen).toEqual([error]);
    runner.emitError({ ...error, error: "again" });
    expect(seen.map((e) => e.error)).toEqual(["boom", "again"]);
  });
});
