/**
 * The bash tool's `spawnHook` (pi's): each command, with its prefix, cwd and environment, goes through the hook and
 * what it returns is what runs — the same command, directory and variables as pi's bash tool runs for the same hook.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBashTool as piCreateBashTool } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BashSpawnContext, createBashTool } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "tiller-spawn-hook-")));
  mkdirSync(join(dir, "elsewhere"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const textOf = (r: { content: Array<{ type: string; text?: string }> }) =>
  r.content.map((b) => (b.type === "text" ? b.text : "")).join("");

describe("bash tool spawnHook", () => {
  it("runs what the hook returns: rewritten command, cwd and environment, as pi's tool does", async () => {
    const seen: BashSpawnContext[] = [];
    const hook = (ctx: BashSpawnContext): BashSpawnContext => {
      seen.push({ ...ctx, env: {} });
      return {
        command: `echo wrapped; ${ctx.command}`,
        cwd: join(ctx.cwd, "elsewhere"),
        env: { ...ctx.env, HOOKED: "yes" },
      };
    };
    const command = "echo $HOOKED; pwd; echo $FROM_OPTIONS";
    const ours = createBashTool(dir, { spawnHook: hook, commandPrefix: "export FROM_OPTIONS=prefixed" });
    const pi = piCreateBashTool(dir, { spawnHook: hook, commandPrefix: "export FROM_OPTIONS=prefixed" });
    const a = textOf(await ours.execute("1", { command }, undefined, undefined));
    const b = textOf(await pi.execute("1", { command }, undefined, undefined));
    const lines = (t: string) => t.split("\n").slice(0, 4);
    expect(lines(a)).toEqual(lines(b));
    expect(lines(a)).toEqual(["wrapped", "yes", join(dir, "elsewhere"), "prefixed"]);
    // The hook saw the prefixed command and the tool's cwd, both times.
    expect(seen).toEqual([
      { command: `export FROM_OPTIONS=prefixed\n${command}`, cwd: dir, env: {} },
      { command: `export FROM_OPTIONS=prefixed\n${command}`, cwd: dir, env: {} },
    ]);
  });

  it("hands the hook the process environment merged with the tool's own", async () => {
    let env: NodeJS.ProcessEnv = {};
    const tool = createBashTool(dir, {
      env: { ...process.env, TOOL_VAR: "from-tool" },
      spawnHook: (ctx) => {
        env = ctx.env;
        return ctx;
      },
    });
    const out = textOf(await tool.execute("1", { command: "echo $TOOL_VAR" }, undefined, undefined));
    expect(out.split("\n")[0]).toBe("from-tool");
    expect(env.TOOL_VAR).toBe("from-tool");
    expect(env.PATH).toBe(process.env.PATH);
  });
});
