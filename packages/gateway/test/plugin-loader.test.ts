import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPlugins } from "../src/plugins/plugin-loader.js";

let home: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "tiller-plugin-loader-"));
  const plugins = join(home, "plugins");
  mkdirSync(plugins);
  // A TypeScript plugin (loaded through tsx), with types in its source.
  writeFileSync(
    join(plugins, "guard.ts"),
    `interface Api { on(name: string, h: (e: { toolName: string }) => unknown, o?: { priority?: number }): void }
export default function register(api: Api): void {
  api.on("before_tool_call", (e) => (e.toolName === "exec" ? { block: true, blockReason: "no exec" } : undefined), { priority: 50 });
}
`,
  );
  // A plain JS plugin exporting an object with an id.
  writeFileSync(
    join(plugins, "audit.mjs"),
    `export default { id: "audit-log", register(api) { api.on("agent_end", () => {}); api.registerTool({ name: "audit_tool", label: "Audit", description: "d", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [], details: {} }) }); } };\n`,
  );
  // A folder plugin with a package.json.
  mkdirSync(join(plugins, "folder-plugin"));
  writeFileSync(
    join(plugins, "folder-plugin", "package.json"),
    JSON.stringify({ name: "folder-plugin-pkg", main: "main.js", type: "module" }),
  );
  writeFileSync(
    join(plugins, "folder-plugin", "main.js"),
    `export function register(api) { api.on("message_sending", () => ({ content: "x" }), { priority: api.config.priority ?? 0 }); }\n`,
  );
  // Broken plugins: register throws after registering a hook, and a module without register.
  writeFileSync(
    join(plugins, "throws.mjs"),
    `export default (api) => { api.on("before_tool_call", () => ({ block: true })); throw new Error("bad setup"); };\n`,
  );
  writeFileSync(join(plugins, "empty.mjs"), "export const nothing = 1;\n");
  writeFileSync(join(plugins, "syntax.mjs"), "export default (api => {;\n");
  // A plugin outside the plugins folder, loaded through plugins.load.
  mkdirSync(join(home, "extra"));
  writeFileSync(join(home, "extra", "extra.mjs"), `export default (api) => { api.on("gateway_start", () => {}); };\n`);
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("plugin loader", () => {
  it("loads .ts, .mjs, folder and plugins.load plugins; bad ones are reported and skipped", async () => {
    const warnings: string[] = [];
    const registry = await loadPlugins({
      home,
      config: {
        plugins: {
          load: { paths: ["./extra/extra.mjs", "./missing.mjs"] },
          entries: { "folder-plugin-pkg": { config: { priority: 7 } } },
        },
      },
      logger: { info: () => {}, warn: (m) => warnings.push(m) },
    });
    expect(registry.plugins.map((p) => p.id).sort()).toEqual(["audit-log", "extra", "folder-plugin-pkg", "guard"]);
    expect(registry.tools.map((t) => t.name)).toEqual(["audit_tool"]);
    const errors = registry.errors.map((e) => `${e.source.split("/").pop()}: ${e.error}`).sort();
    expect(errors).toHaveLength(4);
    expect(errors[0]).toMatch(/^empty\.mjs: the module exports no register/);
    expect(errors[1]).toMatch(/^missing\.mjs: not found/);
    expect(errors[2]).toMatch(/^syntax\.mjs: import failed/);
    expect(errors[3]).toBe("throws.mjs: bad setup");
    // The throwing plugin's hook was discarded: only the TS guard blocks.
    const runner = registry.createHookRunner();
    expect(runner.handlers("before_tool_call").map((h) => h.pluginId)).toEqual(["guard"]);
    expect(runner.handlers("message_sending")[0]?.priority).toBe(7);
    const blocked = await runner.runBeforeToolCall({ toolName: "exec", toolCallId: "1", params: {} });
    expect(blocked).toMatchObject({ block: true, blockReason: "no exec", blockedBy: "guard" });
    expect(warnings.length).toBeGreaterThanOrEqual(4);
  });

  it("a plugin disabled in plugins.entries is not loaded", async () => {
    const registry = await loadPlugins({
      home,
      config: { plugins: { entries: { guard: { enabled: false } } } },
      logger: { info: () => {}, warn: () => {} },
    });
    expect(registry.plugins.map((p) => p.id)).not.toContain("guard");
  });

  it("an empty home loads nothing and does not fail", async () => {
    const empty = mkdtempSync(join(tmpdir(), "tiller-plugin-empty-"));
    try {
      const registry = await loadPlugins({ home: empty });
      expect(registry.plugins).toEqual([]);
      expect(registry.errors).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
