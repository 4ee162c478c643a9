import type { AgentTool } from "@tiller/agent";
import { Type } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { wrapToolWithAbort } from "../src/tools/abort-wrap.js";
import { createAllTools, createCodingTools, createReadOnlyTools } from "../src/tools/index.js";
import { buildToolPipeline, isToolAllowed } from "../src/tools/pipeline.js";
import { normalizeToolSchema } from "../src/tools/schema-normalize.js";
import { tempDir } from "./tool-helpers.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

function fakeTool(name: string, run?: (signal?: AbortSignal) => Promise<string>): AgentTool {
  return {
    name,
    label: name,
    description: `${name} tool`,
    parameters: Type.Object({}),
    execute: async (_id, _params, signal) => ({
      content: [{ type: "text", text: run ? await run(signal) : name }],
      details: {},
    }),
  };
}

describe("tool bundles", () => {
  it("createCodingTools gives read, bash, edit, write; read-only gives read, grep, find, ls", () => {
    expect(createCodingTools(dir).map((t) => t.name)).toEqual(["read", "bash", "edit", "write"]);
    expect(createReadOnlyTools(dir).map((t) => t.name)).toEqual(["read", "grep", "find", "ls"]);
  });

  it("passes the sandbox option to every file tool", async () => {
    const all = createAllTools(dir, { sandbox: true });
    await expect(all.read!.execute("1", { path: "/etc/hostname" })).rejects.toThrow(/outside the workspace/);
    await expect(all.ls!.execute("1", { path: "/" })).rejects.toThrow(/outside the workspace/);
    await expect(all.find!.execute("1", { pattern: "*", path: ".." })).rejects.toThrow(/outside the workspace/);
    await expect(all.exec!.execute("1", { command: "pwd", workdir: "/" })).rejects.toThrow(/outside the workspace/);
  });
});

describe("buildToolPipeline", () => {
  it("applies overrides, then extra tools, then the policy", () => {
    const all = createAllTools(dir);
    const tools = buildToolPipeline({
      base: createCodingTools(dir),
      overrides: { bash: [all.exec!, all.process!], write: null, missing: fakeTool("never") },
      extra: [fakeTool("message"), fakeTool("browser_open"), fakeTool("browser_click")],
      policy: [{ deny: ["browser_click"] }, { allow: ["group:fs", "group:runtime", "browser_*", "message"] }],
    });
    expect(tools.map((t) => t.name)).toEqual(["read", "exec", "process", "edit", "message", "browser_open"]);
  });

  it("lets deny win over allow, in any layer", () => {
    expect(isToolAllowed("bash", { allow: ["bash"], deny: ["bash"] })).toBe(false);
    expect(isToolAllowed("bash", [{ allow: ["*"] }, { deny: ["group:runtime"] }])).toBe(false);
    expect(isToolAllowed("read", [{ allow: ["*"] }, { deny: ["group:runtime"] }])).toBe(true);
    expect(isToolAllowed("write", { allow: ["group:read"] })).toBe(false);
    expect(isToolAllowed("anything")).toBe(true);
  });

  it("refuses two tools with one name", () => {
    expect(() => buildToolPipeline({ base: createCodingTools(dir), extra: [fakeTool("read")] })).toThrow(
      "Duplicate tool name in pipeline: read",
    );
  });

  it("normalizes schemas for the provider without touching the originals", () => {
    const base = createAllTools(dir);
    const [edit, proc, exec] = buildToolPipeline({
      base: [base.edit!, base.process!, base.exec!],
      provider: "google",
    });
    const editItems = (edit!.parameters as { properties: { edits: { items: Record<string, unknown> } } }).properties
      .edits.items;
    expect(editItems.additionalProperties).toBeUndefined();
    expect(base.edit!.parameters.properties.edits.items.additionalProperties).toBe(false);
    const action = (proc!.parameters as { properties: { action: unknown } }).properties.action;
    expect(action).toEqual({ type: "string", enum: ["list", "poll", "log", "write", "kill"] });
    const env = (exec!.parameters as { properties: { env: Record<string, unknown> } }).properties.env;
    expect(env.patternProperties).toBeUndefined();
    expect(JSON.stringify(exec!.parameters)).not.toContain("$schema");
  });

  it("merges a top-level union into one object for OpenAI and Anthropic, and fixes Gemini's quirks", () => {
    const union = Type.Union([
      Type.Object({ mode: Type.Literal("a"), x: Type.String() }),
      Type.Object({ mode: Type.Literal("b"), y: Type.Number() }),
    ]);
    for (const provider of ["openai", "anthropic"]) {
      const out = normalizeToolSchema(union, provider);
      expect(out.type).toBe("object");
      expect(out.anyOf).toBeUndefined();
      expect(Object.keys(out.properties as object)).toEqual(["mode", "x", "y"]);
      expect(out.required).toEqual(["mode"]);
    }
    const gem = normalizeToolSchema(
      {
        type: "object",
        properties: { n: { type: ["string", "null"], default: "x" }, k: { const: "only" } },
        additionalProperties: false,
      },
      "google-vertex",
    );
    expect(gem).toEqual({
      type: "object",
      properties: { n: { type: "string", nullable: true }, k: { type: "string", enum: ["only"] } },
    });
  });

  it("wraps every tool so the run's signal rejects it promptly, even if the tool ignores it", async () => {
    const controller = new AbortController();
    const stubborn = fakeTool("stubborn", () => new Promise((r) => setTimeout(() => r("late"), 3000)));
    const [tool] = buildToolPipeline({ base: [stubborn], signal: controller.signal });
    const running = tool!.execute("1", {});
    setTimeout(() => controller.abort(), 50);
    const t0 = Date.now();
    await expect(running).rejects.toThrow("Tool stubborn aborted");
    expect(Date.now() - t0).toBeLessThan(500);
    await expect(tool!.execute("2", {})).rejects.toThrow("Tool stubborn aborted");
  });

  it("passes results through when nothing aborts, and drops updates after an abort", async () => {
    const quick = wrapToolWithAbort(fakeTool("quick"), new AbortController().signal);
    expect((await quick.execute("1", {})).content).toEqual([{ type: "text", text: "quick" }]);

    const controller = new AbortController();
    const updates: unknown[] = [];
    let emit: (() => void) | undefined;
    const chatty: AgentTool = {
      ...fakeTool("chatty"),
      execute: (_id, _p, _s, onUpdate) =>
        new Promise(() => {
          emit = () => onUpdate?.({ content: [], details: {} });
        }),
    };
    const wrapped = wrapToolWithAbort(chatty, controller.signal);
    const running = wrapped.execute("1", {}, undefined, (u) => updates.push(u));
    emit!();
    controller.abort();
    emit!();
    await expect(running).rejects.toThrow("aborted");
    expect(updates.length).toBe(1);
  });

  it("aborts a real bash command through the per-call signal too", async () => {
    const [bash] = buildToolPipeline({ base: [createCodingTools(dir)[1]!], signal: new AbortController().signal });
    const call = new AbortController();
    const running = bash!.execute("1", { command: "sleep 20" }, call.signal);
    setTimeout(() => call.abort(), 100);
    await expect(running).rejects.toThrow(/aborted/);
  });
});
