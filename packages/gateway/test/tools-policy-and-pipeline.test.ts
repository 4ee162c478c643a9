import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentTool } from "@tiller/agent";
import { Type } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HookRunner } from "../src/plugins/hook-runner.js";
import type { ErasedHookHandler, PluginHookName } from "../src/plugins/hook-types.js";
import { buildGatewayToolset } from "../src/tools/gateway-tool-pipeline.js";
import { createGatewayTools } from "../src/tools/gateway-tools.js";
import { decodePng, encodePng } from "../src/tools/png-resize.js";
import { ToolCallBlockedError } from "../src/tools/tool-hooks.js";
import { resolveToolPolicy, toolDeniedBy } from "../src/tools/tool-policy.js";
import { imageDimensions, sanitizeToolContent } from "../src/tools/tool-result-sanitizer.js";
import { resolveSandboxContext } from "../src/workspace.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-tools-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const hook = (pluginId: string, hookName: PluginHookName, priority: number, handler: unknown) => ({
  pluginId,
  hookName,
  priority,
  handler: handler as ErasedHookHandler,
});

// biome-ignore lint/suspicious/noExplicitAny: test tool.
function fakeTool(name: string, run: (p: any) => Promise<string> | string = () => "ok"): AgentTool<any, any> {
  return {
    name,
    label: name,
    description: `${name} tool`,
    parameters: Type.Object({ value: Type.Optional(Type.String()) }),
    execute: async (_id, params) => ({ content: [{ type: "text", text: await run(params) }], details: {} }),
  };
}

describe("tool policy", () => {
  const names = ["read", "write", "edit", "exec", "process", "message", "sessions_send", "session_status", "web_fetch"];
  const allowed = (layers: ReturnType<typeof resolveToolPolicy>) => names.filter((n) => !toolDeniedBy(n, layers));

  it("profiles give the base allowlist", () => {
    expect(allowed(resolveToolPolicy({ config: { tools: { profile: "messaging" } } }))).toEqual([
      "message",
      "sessions_send",
      "session_status",
    ]);
    expect(allowed(resolveToolPolicy({ config: { tools: { profile: "minimal" } } }))).toEqual(["session_status"]);
    expect(allowed(resolveToolPolicy({ config: { tools: { profile: "full" } } }))).toEqual(names);
    expect(() => resolveToolPolicy({ config: { tools: { profile: "yolo" } } })).toThrow(/unknown tool profile "yolo"/);
  });

  it("deny wins over allow, in the same layer and across layers", () => {
    const same = resolveToolPolicy({ config: { tools: { allow: ["exec", "read"], deny: ["exec"] } } });
    expect(allowed(same)).toEqual(["read"]);
    const across = resolveToolPolicy({
      config: {
        tools: { deny: ["group:runtime"] },
        agents: { list: [{ id: "ops", tools: { allow: ["exec", "read"] } }] },
      },
      agentId: "ops",
    });
    expect(allowed(across)).toEqual(["read"]);
    expect(toolDeniedBy("exec", across)).toBe("tools");
  });

  it("provider, agent, group and sandbox layers each narrow the set", () => {
    const config = {
      tools: {
        byProvider: { google: { deny: ["web_fetch"] } },
        group: { deny: ["exec", "process"] },
        sandbox: { deny: ["message"] },
      },
      agents: { list: [{ id: "helper", tools: { profile: "coding" } }] },
    };
    expect(allowed(resolveToolPolicy({ config, provider: "google" }))).not.toContain("web_fetch");
    expect(allowed(resolveToolPolicy({ config, provider: "openai" }))).toContain("web_fetch");
    expect(allowed(resolveToolPolicy({ config, agentId: "helper" }))).not.toContain("message");
    expect(allowed(resolveToolPolicy({ config, isGroup: true }))).not.toContain("exec");
    const sb = resolveToolPolicy({ config, sandbox: { enabled: true, readOnly: true } });
    expect(allowed(sb)).toEqual(["read", "exec", "process", "sessions_send", "session_status", "web_fetch"]);
    expect(toolDeniedBy("write", sb)).toBe("sandbox(read-only)");
  });
});

describe("gateway tool pipeline", () => {
  it("coding tools with exec/process in place of bash, plus gateway and plugin tools, filtered by policy", () => {
    const ws = join(dir, "ws");
    mkdirSync(ws);
    const { tools, removed } = buildGatewayToolset({
      workspaceDir: ws,
      gatewayTools: createGatewayTools({ sendMessage: async () => {}, sessionStatus: async () => ({}) }),
      pluginTools: [fakeTool("plugin_tool")],
      config: { tools: { deny: ["plugin_tool"] } },
      provider: "openai",
    });
    expect(tools.map((t) => t.name).sort()).toEqual(
      ["edit", "exec", "find", "grep", "ls", "message", "process", "read", "session_status", "write"].sort(),
    );
    expect(removed).toEqual([{ name: "plugin_tool", by: "tools" }]);
  });

  it("a sandboxed run works in the sandbox root and cannot read the agent workspace", async () => {
    const ws = join(dir, "agent-ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "secret.txt"), "agent secret");
    const sandbox = resolveSandboxContext({
      home: dir,
      agentId: "main",
      sessionKey: "agent:main:group:1",
      agentWorkspaceDir: ws,
      sandbox: { mode: "non-main" },
    });
    writeFileSync(join(sandbox.workspaceDir, "note.txt"), "sandbox note");
    const { tools } = buildGatewayToolset({ workspaceDir: ws, sandbox });
    const read = tools.find((t) => t.name === "read") as AgentTool;
    const ok = await read.execute("r1", { path: "note.txt" });
    expect(JSON.stringify(ok.content)).toContain("sandbox note");
    await expect(read.execute("r2", { path: join(ws, "secret.txt") })).rejects.toThrow();
  });

  it("skill env reaches exec", async () => {
    const { tools } = buildGatewayToolset({ workspaceDir: dir, env: { TILLER_SKILL_TOKEN: "skill-secret-42" } });
    const exec = tools.find((t) => t.name === "exec") as AgentTool;
    const r = await exec.execute("e1", { command: 'echo "token=$TILLER_SKILL_TOKEN"' });
    expect(JSON.stringify(r.content)).toContain("token=skill-secret-42");
  });

  it("before_tool_call blocks with the plugin's reason, rewrites params; after_tool_call observes", async () => {
    const observed: unknown[] = [];
    const hooks = new HookRunner([
      hook("guard", "before_tool_call", 10, (e: { toolName: string; params: { value?: string } }) =>
        e.params.value === "rm -rf /" ? { block: true, blockReason: "refusing to wipe the disk" } : undefined,
      ),
      hook("rewriter", "before_tool_call", 5, (e: { params: { value?: string } }) => ({
        params: { value: `${e.params.value}!` },
      })),
      hook("obs", "after_tool_call", 0, (e: unknown) => {
        observed.push(e);
      }),
    ]);
    const { tools } = buildGatewayToolset({
      workspaceDir: dir,
      base: [fakeTool("echo", (p) => `got ${p.value}`)],
      hooks,
      hookContext: { runId: "r1" },
    });
    const echo = tools[0] as AgentTool;
    const blocked = echo.execute("c1", { value: "rm -rf /" });
    await expect(blocked).rejects.toBeInstanceOf(ToolCallBlockedError);
    await expect(blocked).rejects.toThrow("Tool call blocked: refusing to wipe the disk");
    const r = await echo.execute("c2", { value: "hi" });
    expect(r.content).toEqual([{ type: "text", text: "got hi!" }]);
    await new Promise((res) => setTimeout(res, 10));
    expect(observed).toEqual([
      expect.objectContaining({
        toolName: "echo",
        toolCallId: "c2",
        params: { value: "hi!" },
        durationMs: expect.any(Number),
      }),
    ]);
  });

  it("every tool honours the run's abort signal", async () => {
    const controller = new AbortController();
    const never = fakeTool("slow", () => new Promise<string>(() => {}));
    const { tools } = buildGatewayToolset({ workspaceDir: dir, base: [never], signal: controller.signal });
    const p = (tools[0] as AgentTool).execute("s1", {});
    setTimeout(() => controller.abort(), 10);
    await expect(p).rejects.toThrow(/aborted/);
  });

  it("without a run signal, a tool that ignores its call's signal still ends when that signal aborts", async () => {
    const controller = new AbortController();
    const never = fakeTool("slow", () => new Promise<string>(() => {}));
    const { tools } = buildGatewayToolset({ workspaceDir: dir, base: [never] });
    const p = (tools[0] as AgentTool).execute("s2", {}, controller.signal);
    setTimeout(() => controller.abort(), 10);
    await expect(p).rejects.toThrow(/aborted/);
  });

  it("tool results are size-capped with a note before anyone stores them", async () => {
    const { tools } = buildGatewayToolset({
      workspaceDir: dir,
      base: [fakeTool("big", () => "z".repeat(20_000))],
      sanitize: { maxChars: 1000 },
    });
    const r = await (tools[0] as AgentTool).execute("b", {});
    const out = (r.content[0] as { text: string }).text;
    expect(out.length).toBeLessThan(1100);
    expect(out).toContain("19000 more characters not shown");
  });
});

function png(width: number, height: number, extraBytes = 0): string {
  const b = Buffer.alloc(33 + extraBytes);
  b.writeUInt32BE(0x89504e47, 0);
  b.writeUInt32BE(0x0d0a1a0a, 4);
  b.writeUInt32BE(13, 8);
  b.write("IHDR", 12, "ascii");
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b.toString("base64");
}

describe("tool result sanitizer: images", () => {
  it("keeps small images, replaces undecodable oversized ones with a note, and uses a resizer when given", async () => {
    const small = { type: "image" as const, data: png(100, 80), mimeType: "image/png" };
    const huge = { type: "image" as const, data: png(4000, 3000), mimeType: "image/png" };
    const plain = await sanitizeToolContent([small, huge]);
    expect(plain.content[0]).toBe(small);
    expect(plain.content[1]).toEqual({
      type: "text",
      text: expect.stringContaining("[image omitted: 4000×3000 image/png"),
    });
    expect(plain.report.imagesReplaced).toBe(1);
    const resized = await sanitizeToolContent([huge], {
      resizeImage: async (_img, info, limits) => {
        expect(info).toMatchObject({ width: 4000, height: 3000 });
        expect(limits.maxDimension).toBe(1200);
        return { type: "image", data: png(1200, 900), mimeType: "image/png" };
      },
    });
    expect(resized.report.imagesResized).toBe(1);
    expect(imageDimensions((resized.content[0] as { data: string }).data)).toEqual({ width: 1200, height: 900 });
  });

  it("real PNGs are downscaled to fit (colours kept); formats it cannot decode are replaced", async () => {
    const w = 2400;
    const h = 1000;
    const data = new Uint8Array(w * h * 4);
    for (let i = 0; i < w * h; i++) data.set([200, 100, 50, 255], i * 4);
    const big = {
      type: "image" as const,
      data: encodePng({ width: w, height: h, data }).toString("base64"),
      mimeType: "image/png",
    };
    const r = await sanitizeToolContent([big]);
    expect(r.report).toMatchObject({ imagesResized: 1, imagesReplaced: 0 });
    const out = decodePng(Buffer.from((r.content[0] as { data: string }).data, "base64"));
    expect(out).toMatchObject({ width: 1200, height: 500 });
    expect([...(out?.data.subarray(0, 4) ?? [])]).toEqual([200, 100, 50, 255]);
    const jpegHead = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x0f, 0xa0, 0x0f, 0xa0, 3, 0, 0,
    ]);
    const jpeg = await sanitizeToolContent([
      { type: "image", data: jpegHead.toString("base64"), mimeType: "image/jpeg" },
    ]);
    expect(jpeg.report.imagesReplaced).toBe(1);
  });

  it("replaces images over the byte limit and reads JPEG and GIF sizes", async () => {
    const bytes = await sanitizeToolContent([{ type: "image", data: png(10, 10, 3000), mimeType: "image/png" }], {
      maxImageBytes: 1000,
    });
    expect(bytes.report.imagesReplaced).toBe(1);
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x02, 0x58, 0x03, 0x20, 3, 0, 0,
    ]);
    expect(imageDimensions(jpeg.toString("base64"))).toEqual({ width: 800, height: 600 });
    const gif = Buffer.from("GIF89a\x40\x01\xf0\x00", "latin1");
    expect(imageDimensions(gif.toString("base64"))).toEqual({ width: 320, height: 240 });
  });
});

describe("gateway tools", () => {
  it("message goes through message_sending (rewrite, cancel) and message_sent", async () => {
    const sent: string[] = [];
    const seen: unknown[] = [];
    const hooks = new HookRunner([
      hook("sig", "message_sending", 5, (e: { content: string }) => ({ content: `${e.content} — sent by Tiller` })),
      hook("block-boss", "message_sending", 1, (e: { to: string }) => (e.to === "boss" ? { cancel: true } : undefined)),
      hook("log", "message_sent", 0, (e: unknown) => {
        seen.push(e);
      }),
    ]);
    const [message] = createGatewayTools({
      sendMessage: async ({ to, text }) => {
        sent.push(`${to}:${text}`);
      },
      hooks,
    });
    const r = await (message as AgentTool).execute("m1", { to: "alice", text: "hi" });
    expect(r.details).toEqual({ to: "alice", text: "hi — sent by Tiller" });
    expect(sent).toEqual(["alice:hi — sent by Tiller"]);
    expect(seen).toEqual([{ to: "alice", content: "hi — sent by Tiller", success: true }]);
    await expect((message as AgentTool).execute("m2", { to: "boss", text: "x" })).rejects.toThrow(
      "cancelled by plugin block-boss",
    );
    expect(sent).toHaveLength(1);
  });
});
