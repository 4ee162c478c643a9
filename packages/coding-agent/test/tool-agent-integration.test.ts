import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Agent } from "@tiller/agent";
import {
  type FauxProviderRegistration,
  fauxAssistantMessage,
  fauxToolCall,
  registerFauxProvider,
  type ToolResultMessage,
} from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildToolPipeline, createAllTools, createCodingTools, ProcessRegistry } from "../src/tools/index.js";
import { tempDir } from "./tool-helpers.js";

let dir: string;
let cleanup: () => void;
let faux: FauxProviderRegistration;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  faux = registerFauxProvider();
});
afterEach(() => {
  faux.unregister();
  cleanup();
});

function toolResults(agent: Agent): ToolResultMessage[] {
  return agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

describe("coding tools inside a real agent run", () => {
  it("runs parallel edits of one file without losing any, and reports a bad edit as an error result", async () => {
    writeFileSync(path.join(dir, "conf.ini"), "a=1\nb=1\nc=1\nc=1\n");
    faux.setResponses([
      fauxAssistantMessage([
        fauxToolCall("edit", { path: "conf.ini", edits: [{ oldText: "a=1", newText: "a=2" }] }),
        fauxToolCall("edit", { path: "conf.ini", edits: [{ oldText: "b=1", newText: "b=2" }] }),
        fauxToolCall("edit", { path: "conf.ini", edits: [{ oldText: "c=1", newText: "c=2" }] }),
        fauxToolCall("read", { path: "missing.txt" }),
      ]),
      fauxAssistantMessage("done"),
    ]);
    const tools = buildToolPipeline({ base: createCodingTools(dir, { sandbox: true }), provider: faux.api });
    const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
    await agent.prompt("fix the config");
    expect(readFileSync(path.join(dir, "conf.ini"), "utf8")).toBe("a=2\nb=2\nc=1\nc=1\n");
    const results = toolResults(agent);
    expect(results.map((r) => r.isError)).toEqual([false, false, true, true]);
    const text = (r: ToolResultMessage) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    expect(text(results[2]!)).toContain("Found 2 matches for oldText in conf.ini");
    expect(text(results[3]!)).toBe("File not found: missing.txt");
  });

  it("replaces bash with exec/process through overrides and keeps the process readable across turns", async () => {
    const registry = new ProcessRegistry();
    const all = createAllTools(dir, { processRegistry: registry });
    const tools = buildToolPipeline({
      base: createCodingTools(dir),
      overrides: { bash: [all.exec!, all.process!] },
      provider: "google",
    });
    faux.setResponses([
      fauxAssistantMessage(fauxToolCall("exec", { command: "echo from-exec", background: true })),
      async (context) => {
        const last = context.messages[context.messages.length - 1] as ToolResultMessage;
        const id = /session (proc_[a-z0-9_]+)/.exec(JSON.stringify(last.content))![1]!;
        await registry.get(id)!.done;
        return fauxAssistantMessage(fauxToolCall("process", { action: "log", sessionId: id }));
      },
      fauxAssistantMessage("done"),
    ]);
    const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
    await agent.prompt("run it");
    const results = toolResults(agent);
    expect(results.map((r) => r.toolName)).toEqual(["exec", "process"]);
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(JSON.stringify(results[1]!.content)).toMatch(/from-exec.*exited with code 0/);
    registry.dispose();
    expect(tools.map((t) => t.name)).toEqual(["read", "exec", "process", "edit", "write"]);
  });
});
