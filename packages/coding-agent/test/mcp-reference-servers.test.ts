/**
 * MCP tools from the reference servers (server-everything over stdio, streamable HTTP and legacy SSE;
 * server-filesystem over stdio) driven through a real agent run by a scripted model.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, type AgentEvent } from "@tiller/agent";
import {
  type FauxProviderRegistration,
  fauxAssistantMessage,
  fauxToolCall,
  registerFauxProvider,
  type ToolResultMessage,
} from "@tiller/ai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadExtensions } from "../src/extensions/index.js";
import { McpManager } from "../src/mcp/index.js";
import { buildToolPipeline } from "../src/tools/index.js";
import { definition, everythingStdio, FILESYSTEM, startEverythingHttp } from "./mcp-helpers/servers.js";
import { tempDir } from "./tool-helpers.js";

let faux: FauxProviderRegistration;
beforeEach(() => {
  faux = registerFauxProvider();
});
afterEach(() => faux.unregister());

function results(agent: Agent): ToolResultMessage[] {
  return agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

function text(r: ToolResultMessage): string {
  return r.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
}

describe("server-everything over stdio", () => {
  let manager: McpManager;
  beforeAll(async () => {
    manager = new McpManager([definition("everything", everythingStdio())]);
    await manager.start();
  }, 60_000);
  afterAll(() => manager.stop());

  it("offers its tools as mcp__everything__* with description and schema; args, image, progress and errors map", async () => {
    const tools = buildToolPipeline({ base: [], extra: manager.tools(), provider: faux.api });
    const sum = tools.find((t) => t.name === "mcp__everything__get-sum");
    expect(sum?.description).toBe("Returns the sum of two numbers");
    expect(sum?.parameters).toMatchObject({ type: "object", required: ["a", "b"] });

    faux.setResponses([
      fauxAssistantMessage([
        // "2" is coerced to 2 by the agent's validation, as for every tool.
        fauxToolCall("mcp__everything__get-sum", { a: "2", b: 40 }),
        fauxToolCall("mcp__everything__get-tiny-image", {}),
        fauxToolCall("mcp__everything__trigger-long-running-operation", { duration: 0.6, steps: 3 }),
        fauxToolCall("mcp__everything__get-resource-reference", { resourceType: "Text", resourceId: -1 }),
        fauxToolCall("mcp__everything__get-sum", { a: "two", b: 1 }),
        fauxToolCall("mcp__everything__get-resource-reference", { resourceType: "Text", resourceId: 2 }),
      ]),
      fauxAssistantMessage("done"),
    ]);
    const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
    const updates: AgentEvent[] = [];
    agent.subscribe((e) => {
      if (e.type === "tool_execution_update") updates.push(e);
    });
    await agent.prompt("use the tools");
    const r = results(agent);
    expect(r).toHaveLength(6);
    expect(text(r[0]!)).toBe("The sum of 2 and 40 is 42.");
    expect(r[0]!.isError).toBe(false);
    // Image content reaches the model as an image block between the two texts.
    expect(r[1]!.content.map((c) => c.type)).toEqual(["text", "image", "text"]);
    expect(r[1]!.content[1]).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(text(r[2]!)).toContain("Long running operation completed");
    const progress = updates.filter(
      (e) => e.type === "tool_execution_update" && e.toolName === "mcp__everything__trigger-long-running-operation",
    );
    // The server reports steps 1..3; the SDK may drop the last one when the result overtakes it.
    const steps = progress.map(
      (e) => (e as { partialResult: { details: { progress: unknown } } }).partialResult.details.progress,
    );
    expect(steps.length).toBeGreaterThanOrEqual(2);
    expect(steps).toEqual([1, 2, 3].slice(0, steps.length).map((n) => ({ progress: n, total: 3 })));
    // The server's isError answer is an error result carrying its text.
    expect(r[3]!.isError).toBe(true);
    expect(text(r[3]!)).toContain("Invalid resourceId");
    // Arguments that do not fit the server's schema never reach it: the agent's validation answers.
    expect(r[4]!.isError).toBe(true);
    expect(text(r[4]!)).toContain('Validation failed for tool "mcp__everything__get-sum"');
    expect(text(r[4]!)).not.toContain("MCP error");
    // An embedded text resource becomes text headed by its URI.
    expect(r[5]!.isError).toBe(false);
    expect(text(r[5]!)).toMatch(/\[resource demo:\/\/resource\/dynamic\/text\/2 \(text\/plain\)\]\n/);
  }, 60_000);

  it("resource links become notes; structured content is kept in details; an enum outside the schema is refused", async () => {
    const tools = buildToolPipeline({ base: [], extra: manager.tools(), provider: faux.api });
    faux.setResponses([
      fauxAssistantMessage([
        fauxToolCall("mcp__everything__get-resource-links", { count: 2 }),
        fauxToolCall("mcp__everything__get-structured-content", { location: "Chicago" }),
        fauxToolCall("mcp__everything__get-structured-content", { location: "Paris" }),
      ]),
      fauxAssistantMessage("done"),
    ]);
    const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
    await agent.prompt("links and weather");
    const r = results(agent);
    expect(text(r[0]!)).toContain("Here are 2 resource links");
    expect(text(r[0]!).match(/\[resource link: /g)).toHaveLength(2);
    expect(r[1]!.isError).toBe(false);
    expect(r[1]!.details).toMatchObject({
      server: "everything",
      tool: "get-structured-content",
      structuredContent: { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 },
    });
    // "Paris" is not in the server's enum: the agent's validation of the MCP schema answers, the server is not asked.
    expect(r[2]!.isError).toBe(true);
    expect(text(r[2]!)).toContain('Validation failed for tool "mcp__everything__get-structured-content"');
    expect(text(r[2]!)).toContain("location");
  }, 60_000);

  it("a deny policy removes an MCP tool; an extension's tool_call guard blocks one like a built-in", async () => {
    const tools = buildToolPipeline({
      base: [],
      extra: manager.tools(),
      policy: { deny: ["mcp__everything__get-env"] },
      provider: faux.api,
    });
    expect(tools.some((t) => t.name === "mcp__everything__get-env")).toBe(false);
    expect(tools.some((t) => t.name === "mcp__everything__echo")).toBe(true);

    const { dir, cleanup } = tempDir("tiller-mcp-ext-");
    try {
      const seen: string[] = [];
      const runner = await loadExtensions({
        cwd: dir,
        noDiscovery: true,
        factories: [
          {
            name: "guard",
            factory: (api) => {
              api.on("tool_call", (e) => {
                seen.push(e.toolName);
                return String(e.input.message).includes("secret")
                  ? { block: true, reason: "GUARD: no secrets" }
                  : undefined;
              });
              api.on("tool_result", (e) =>
                e.toolName === "mcp__everything__echo"
                  ? { content: [{ type: "text", text: "redacted by extension" }] }
                  : undefined,
              );
            },
          },
        ],
      });
      const hooks = runner.agentHooks();
      faux.setResponses([
        fauxAssistantMessage([
          fauxToolCall("mcp__everything__echo", { message: "the secret" }),
          fauxToolCall("mcp__everything__echo", { message: "hello" }),
          fauxToolCall("mcp__everything__get-env", {}),
        ]),
        fauxAssistantMessage("done"),
      ]);
      const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
      agent.beforeToolCall = hooks.beforeToolCall;
      agent.afterToolCall = hooks.afterToolCall;
      await agent.prompt("echo");
      const r = results(agent);
      expect(seen).toEqual(["mcp__everything__echo", "mcp__everything__echo"]); // get-env was never offered
      expect(r[0]!.isError).toBe(true);
      expect(text(r[0]!)).toBe("GUARD: no secrets");
      expect(text(r[1]!)).toBe("redacted by extension");
      expect(r[2]!.isError).toBe(true);
      expect(text(r[2]!)).toContain('Tool "mcp__everything__get-env" not found');
    } finally {
      cleanup();
    }
  }, 60_000);
});

describe("server-everything over HTTP", () => {
  it("streamable HTTP: tools listed and called; an http entry pointed at an SSE-only server falls back to HTTP+SSE", async () => {
    const [streamable, sse] = await Promise.all([startEverythingHttp("streamableHttp"), startEverythingHttp("sse")]);
    const manager = new McpManager([
      definition("remote", { type: "http", url: streamable.url }),
      definition("legacy", { type: "http", url: sse.url }),
      definition("explicit-sse", { type: "sse", url: sse.url }),
    ]);
    try {
      await manager.start();
      const status = Object.fromEntries(manager.status().map((s) => [s.name, s]));
      expect(status.remote).toMatchObject({ state: "connected", transport: "http" });
      expect(status.legacy).toMatchObject({ state: "connected", transport: "sse" });
      expect(status["explicit-sse"]).toMatchObject({ state: "connected", transport: "sse" });
      const tools = buildToolPipeline({ base: [], extra: manager.tools(), provider: faux.api });
      faux.setResponses([
        fauxAssistantMessage([
          fauxToolCall("mcp__remote__echo", { message: "over streamable http" }),
          fauxToolCall("mcp__legacy__get-sum", { a: 1, b: 2 }),
          fauxToolCall("mcp__remote__trigger-long-running-operation", { duration: 0.4, steps: 2 }),
        ]),
        fauxAssistantMessage("done"),
      ]);
      const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
      let updates = 0;
      agent.subscribe((e) => {
        if (e.type === "tool_execution_update") updates++;
      });
      await agent.prompt("remote");
      const r = results(agent);
      expect(text(r[0]!)).toBe("Echo: over streamable http");
      expect(text(r[1]!)).toBe("The sum of 1 and 2 is 3.");
      expect(text(r[2]!)).toContain("completed");
      expect(updates).toBeGreaterThanOrEqual(1);
    } finally {
      await manager.stop();
      await Promise.all([streamable.close(), sse.close()]);
    }
  }, 90_000);
});

describe("server-filesystem over stdio", () => {
  it("reads and lists inside its allowed folder; a path outside is the server's error", async () => {
    const { dir, cleanup } = tempDir("tiller-mcp-fs-");
    mkdirSync(join(dir, "allowed"));
    writeFileSync(join(dir, "allowed", "notes.txt"), "MCP filesystem content\n");
    writeFileSync(join(dir, "outside.txt"), "private");
    const manager = new McpManager([
      definition("files", { command: process.execPath, args: [FILESYSTEM, join(dir, "allowed")] }),
    ]);
    try {
      await manager.start();
      const tools = buildToolPipeline({ base: [], extra: manager.tools(), provider: faux.api });
      expect(tools.map((t) => t.name)).toContain("mcp__files__read_text_file");
      faux.setResponses([
        fauxAssistantMessage([
          fauxToolCall("mcp__files__read_text_file", { path: join(dir, "allowed", "notes.txt") }),
          fauxToolCall("mcp__files__list_directory", { path: join(dir, "allowed") }),
          fauxToolCall("mcp__files__read_text_file", { path: join(dir, "outside.txt") }),
        ]),
        fauxAssistantMessage("done"),
      ]);
      const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
      await agent.prompt("files");
      const r = results(agent);
      expect(text(r[0]!)).toContain("MCP filesystem content");
      expect(text(r[1]!)).toContain("[FILE] notes.txt");
      expect(r[2]!.isError).toBe(true);
      expect(text(r[2]!)).toMatch(/outside allowed directories|Access denied/i);
      expect(text(r[2]!)).not.toContain("private");
    } finally {
      await manager.stop();
      cleanup();
    }
  }, 60_000);
});
