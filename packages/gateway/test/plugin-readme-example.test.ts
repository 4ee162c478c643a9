/**
 * The README's example plugin is real: extracted from packages/gateway/README.md, written to a temp
 * $TILLER_HOME/plugins/, loaded by the plugin loader (TypeScript through tsx) and run through the hook runner and a
 * hook-wrapped exec tool.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentTool } from "@tiller/agent";
import { Type } from "@tiller/ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPlugins } from "../src/plugins/plugin-loader.js";
import { wrapToolWithHooks } from "../src/tools/tool-hooks.js";

const README = join(dirname(fileURLToPath(import.meta.url)), "..", "README.md");
let home: string;

function examplePlugin(): string {
  const text = readFileSync(README, "utf8");
  const start = text.indexOf("`$TILLER_HOME/plugins/no-rm-rf.ts`:");
  expect(start).toBeGreaterThan(0);
  const m = /```ts\n([\s\S]*?)```/.exec(text.slice(start));
  expect(m).not.toBeNull();
  return (m as RegExpExecArray)[1] as string;
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "tiller-readme-plugin-"));
  mkdirSync(join(home, "plugins"));
  writeFileSync(join(home, "plugins", "no-rm-rf.ts"), examplePlugin());
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("README example plugin", () => {
  it("loads from $TILLER_HOME/plugins and blocks dangerous exec calls, letting safe ones run", async () => {
    const registry = await loadPlugins({ home, logger: { info: () => {}, warn: (m) => expect.fail(m) } });
    expect(registry.plugins.map((p) => p.id)).toEqual(["no-rm-rf"]);
    const hooks = registry.createHookRunner();
    const ran: string[] = [];
    const exec: AgentTool = {
      name: "exec",
      label: "exec",
      description: "run",
      parameters: Type.Object({ command: Type.String() }),
      execute: async (_id, params) => {
        ran.push((params as { command: string }).command);
        return { content: [{ type: "text", text: "ok" }], details: {} };
      },
    };
    const guarded = wrapToolWithHooks(exec, { hooks });
    await expect(guarded.execute("1", { command: "rm -rf /" })).rejects.toThrow(
      "Tool call blocked: refused by policy: rm -rf /",
    );
    await expect(guarded.execute("2", { command: "rm -rf ~" })).rejects.toThrow(/refused by policy/);
    await guarded.execute("3", { command: "ls -la" });
    expect(ran).toEqual(["ls -la"]);
  });
});
