import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExtensionError } from "../src/extensions/index.js";
import { loadExtensions } from "../src/extensions/index.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tiller-ext-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("extension loading", () => {
  it("loads TypeScript and JavaScript extensions from .tiller/extensions and the home folder", async () => {
    const project = join(root, "project");
    mkdirSync(join(project, ".tiller", "extensions", "folder-ext"), { recursive: true });
    mkdirSync(join(root, "home", "extensions"), { recursive: true });
    writeFileSync(
      join(project, ".tiller", "extensions", "typed.ts"),
      `import type { ExtensionAPI } from "@tiller/coding-agent";
       const label: string = "typed";
       export default function (api: ExtensionAPI): void {
         api.registerCommand("hello", { description: label, handler: () => {} });
       }`,
    );
    writeFileSync(
      join(project, ".tiller", "extensions", "folder-ext", "index.ts"),
      "export default (api) => api.registerCommand('folder', { handler() {} });",
    );
    writeFileSync(
      join(root, "home", "extensions", "plain.mjs"),
      "export default (api) => api.registerCommand('plain', { handler() {} });",
    );
    const runner = await loadExtensions({ cwd: project, tillerHome: join(root, "home") });
    const errors: ExtensionError[] = [];
    runner.onError((e) => errors.push(e));
    expect(errors).toEqual([]);
    expect([...runner.getCommands().keys()].sort()).toEqual(["folder", "hello", "plain"]);
    expect(runner.getCommands().get("hello")!.description).toBe("typed");
  });

  it("reports a throwing factory, a syntax error and a missing factory, and still loads the good one", async () => {
    const dir = join(root, "exts");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "a-throws.mjs"),
      "export default (api) => { api.on('input', () => {}); throw new Error('boom'); };",
    );
    writeFileSync(join(dir, "b-broken.mjs"), "export default (api => {");
    writeFileSync(join(dir, "c-nofactory.mjs"), "export const x = 1;");
    writeFileSync(join(dir, "d-good.mjs"), "export default (api) => api.registerCommand('ok', { handler() {} });");
    const runner = await loadExtensions({ cwd: root, paths: [dir, join(root, "missing.ts")], noDiscovery: true });
    const errors: ExtensionError[] = [];
    runner.onError((e) => errors.push(e));
    expect(runner.extensions.map((e) => e.path)).toEqual([join(dir, "d-good.mjs")]);
    // The throwing factory's half-done registrations are dropped.
    expect(runner.hasHandlers("input")).toBe(false);
    const byFile = Object.fromEntries(errors.map((e) => [e.extensionPath.split("/").pop(), e.error]));
    expect(byFile["a-throws.mjs"]).toBe("boom");
    expect(byFile["b-broken.mjs"]).toBeTruthy();
    expect(byFile["c-nofactory.mjs"]).toContain("no default-exported function");
    expect(byFile["missing.ts"]).toBe("file not found");
  });
});

describe("extension hooks", () => {
  const call = {
    assistantMessage: {} as never,
    context: { systemPrompt: "", messages: [] },
  };

  it("tool_call can block a call with a reason, or rewrite its arguments", async () => {
    const runner = await loadExtensions({
      cwd: root,
      noDiscovery: true,
      factories: [
        {
          name: "guard",
          factory: (api) => {
            api.on("tool_call", (e) => {
              if (e.toolName === "bash" && String(e.input.command).includes("rm -rf")) {
                return { block: true, reason: "dangerous command" };
              }
              if (e.toolName === "read") return { input: { ...e.input, path: "/safe/file" } };
              return undefined;
            });
          },
        },
      ],
    });
    const hooks = runner.agentHooks();
    const blocked = await hooks.beforeToolCall({
      ...call,
      toolCall: { type: "toolCall", id: "1", name: "bash", arguments: { command: "rm -rf /" } },
      args: { command: "rm -rf /" },
    });
    expect(blocked).toEqual({ block: true, reason: "dangerous command" });
    const rewritten = await hooks.beforeToolCall({
      ...call,
      toolCall: { type: "toolCall", id: "2", name: "read", arguments: { path: "/etc/passwd" } },
      args: { path: "/etc/passwd" },
    });
    expect(rewritten).toEqual({ args: { path: "/safe/file" } });
    const untouched = await hooks.beforeToolCall({
      ...call,
      toolCall: { type: "toolCall", id: "3", name: "bash", arguments: { command: "ls" } },
      args: { command: "ls" },
    });
    expect(untouched).toBeUndefined();
  });

  it("a tool_call guard that throws blocks the call and is reported", async () => {
    const runner = await loadExtensions({
      cwd: root,
      noDiscovery: true,
      factories: [{ name: "crashy", factory: (api) => api.on("tool_call", () => Promise.reject(new Error("kaput"))) }],
    });
    const errors: ExtensionError[] = [];
    runner.onError((e) => errors.push(e));
    const r = await runner.agentHooks().beforeToolCall({
      ...call,
      toolCall: { type: "toolCall", id: "1", name: "bash", arguments: {} },
      args: {},
    });
    expect(r?.block).toBe(true);
    expect(r?.reason).toContain("kaput");
    // pi's shape: the path, the event, the message and the thrown Error's stack.
    expect(errors).toMatchObject([{ extensionPath: "crashy", event: "tool_call", error: "kaput" }]);
    expect(errors[0]?.stack).toContain("kaput");
  });

  it("tool_result, context and before_agent_start results change what happens; throwing handlers are skipped", async () => {
    const runner = await loadExtensions({
      cwd: root,
      noDiscovery: true,
      factories: [
        {
          name: "first",
          factory: (api) => {
            api.on("tool_result", (e) => ({
              content: [{ type: "text", text: `redacted(${e.toolName})` }],
              isError: false,
            }));
            api.on("context", (e) => ({ messages: e.messages.slice(-1) }));
            api.on("before_agent_start", (e) => ({ systemPrompt: `${e.systemPrompt} +first` }));
          },
        },
        {
          name: "second",
          factory: (api) => {
            api.on("before_agent_start", () => {
              throw new Error("ignored");
            });
            api.on("before_agent_start", (e) => ({ systemPrompt: `${e.systemPrompt} +second` }));
          },
        },
      ],
    });
    const errors: ExtensionError[] = [];
    runner.onError((e) => errors.push(e));
    const hooks = runner.agentHooks();
    const after = await hooks.afterToolCall({
      ...call,
      toolCall: { type: "toolCall", id: "1", name: "read", arguments: {} },
      args: {},
      result: { content: [{ type: "text", text: "secret" }], details: undefined },
      isError: true,
    });
    expect(after).toEqual({ content: [{ type: "text", text: "redacted(read)" }], details: undefined, isError: false });
    const msgs = [
      { role: "user" as const, content: "a", timestamp: 1 },
      { role: "user" as const, content: "b", timestamp: 2 },
    ];
    expect(await hooks.transformContext(msgs)).toEqual([msgs[1]]);
    expect(await runner.beforeAgentStart("hi", "base")).toBe("base +first +second");
    expect(errors.map((e) => `${e.extensionPath}:${e.event}:${e.error}`)).toEqual([
      "second:before_agent_start:ignored",
    ]);
  });

  it("commands run by name and a throwing command is reported, not thrown", async () => {
    const seen: string[] = [];
    const runner = await loadExtensions({
      cwd: root,
      noDiscovery: true,
      factories: [
        {
          name: "cmds",
          factory: (api) => {
            api.registerCommand("greet", { handler: (args) => void seen.push(args) });
            api.registerCommand("fail", {
              handler: () => {
                throw new Error("nope");
              },
            });
          },
        },
      ],
    });
    const errors: ExtensionError[] = [];
    runner.onError((e) => errors.push(e));
    expect(await runner.runCommand("/greet world  ")).toBe(true);
    expect(await runner.runCommand("/fail")).toBe(true);
    expect(await runner.runCommand("/unknown")).toBe(false);
    expect(seen).toEqual(["world"]);
    expect(errors[0]).toMatchObject({ event: "command:/fail", error: "nope" });
  });
});
