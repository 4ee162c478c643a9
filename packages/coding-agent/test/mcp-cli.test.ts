/**
 * MCP in the real `tiller` CLI: a project's `.mcp.json` runs only with `--trust-mcp` (then remembered), MCP tools
 * are in the first model request, extension hooks and `--tools` apply to them, `tiller mcp list` reports the
 * servers, and no server process outlives the CLI.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { type ChatRequestBody, lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { startRpc } from "./cli-helpers/rpc-client.js";
import { CLI_COMMAND, runCli } from "./cli-helpers/spawn-cli.js";
import { EVERYTHING, waitFor } from "./mcp-helpers/servers.js";

let server: MockServer;
let fx: CliFixture;
const marker = `tiller-mcp-marker-${randomUUID()}`;

function toolNames(body: ChatRequestBody): string[] {
  return (body.tools ?? []).map((t) => t.function.name);
}
function requestsFor(text: string): ChatRequestBody[] {
  return server.requests.filter((r) => lastUserText(r).includes(text));
}
/** Processes whose command line holds the marker argument given to the test's MCP server. */
function markedProcesses(): number[] {
  const out: number[] = [];
  if (!existsSync("/proc")) return out; // no /proc (macOS): nothing to scan
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const state = readFileSync(`/proc/${pid}/status`, "utf8");
      if (cmd.includes(marker) && !/^State:\s+Z/m.test(state)) out.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

beforeAll(async () => {
  server = await startMockOpenAI((body) => {
    const user = lastUserText(body);
    const last = body.messages[body.messages.length - 1]!;
    if (last.role === "tool") return { text: `tool said: ${JSON.stringify(last.content)}` };
    if (user.includes("add numbers"))
      return { toolCalls: [{ name: "mcp__everything__get-sum", arguments: { a: 2, b: 3 } }] };
    if (user.includes("endless job"))
      return {
        toolCalls: [
          { name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 60, steps: 60 } },
        ],
      };
    if (user.includes("long job"))
      return {
        toolCalls: [
          { name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 0.9, steps: 3 } },
        ],
      };
    if (user.includes("echo secret"))
      return { toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "my secret" } }] };
    return { text: `Echo: ${user}` };
  });
  fx = makeFixture(server, "tiller-mcp-cli-");
  writeFileSync(
    join(fx.project, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING, "stdio", marker] },
        ghost: { command: "tiller-no-such-mcp-command" },
      },
    }),
  );
}, 60_000);

afterAll(async () => {
  await server.close();
  fx.cleanup();
});

describe("MCP in the CLI", () => {
  it("an untrusted project server does not start in print mode; --trust-mcp starts it, its tool runs, trust is remembered", async () => {
    const denied = await runCli(["-p", "--no-session", "first try"], { cwd: fx.project, env: fx.env });
    expect(denied.code).toBe(0);
    expect(denied.stderr).toContain('MCP server "everything"');
    expect(denied.stderr).toContain("--trust-mcp");
    expect(toolNames(requestsFor("first try")[0]!).some((n) => n.startsWith("mcp__"))).toBe(false);

    const trusted = await runCli(["-p", "--no-session", "--trust-mcp", "add numbers"], {
      cwd: fx.project,
      env: fx.env,
    });
    expect(trusted.code).toBe(0);
    // The tools are in the very first model request of the run.
    const first = requestsFor("add numbers")[0]!;
    expect(toolNames(first)).toEqual(
      expect.arrayContaining(["read", "bash", "mcp__everything__get-sum", "mcp__everything__echo"]),
    );
    expect(trusted.stdout).toContain("The sum of 2 and 3 is 5.");
    // The missing command is reported once, and does not stop the run.
    expect(trusted.stderr.match(/command not found: tiller-no-such-mcp-command/g)).toHaveLength(1);
    expect(existsSync(join(fx.home, "mcp-trust.json"))).toBe(true);

    const again = await runCli(["-p", "--no-session", "add numbers again"], { cwd: fx.project, env: fx.env });
    expect(again.stdout).toContain("The sum of 2 and 3 is 5.");
    expect(again.stderr).not.toContain("--trust-mcp");
    expect(markedProcesses()).toEqual([]); // no server outlives the CLI
  }, 120_000);

  it("json mode: an extension's tool_call guard blocks an MCP tool; --tools selects MCP tools by pattern", async () => {
    mkdirSync(join(fx.project, ".tiller", "extensions"), { recursive: true });
    writeFileSync(
      join(fx.project, ".tiller", "extensions", "guard.ts"),
      `export default function (api: { on: (e: string, h: (ev: any) => unknown) => void }): void {
         api.on("tool_call", (ev) =>
           ev.toolName.startsWith("mcp__") && String(ev.input.message ?? "").includes("secret")
             ? { block: true, reason: "GUARD: no secrets to MCP" }
             : undefined);
       }`,
    );
    try {
      const r = await runCli(["--mode", "json", "--no-session", "--tools", "read,mcp__everything__e*", "echo secret"], {
        cwd: fx.project,
        env: fx.env,
      });
      expect(r.code).toBe(0);
      const events = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; toolName?: string; isError?: boolean; result?: unknown });
      const end = events.find((e) => e.type === "tool_execution_end" && e.toolName === "mcp__everything__echo");
      expect(end?.isError).toBe(true);
      expect(JSON.stringify(end?.result)).toContain("GUARD: no secrets to MCP");
      expect(toolNames(requestsFor("echo secret")[0]!).sort()).toEqual(["mcp__everything__echo", "read"]);
    } finally {
      writeFileSync(join(fx.project, ".tiller", "extensions", "guard.ts"), "export default () => {};");
    }
  }, 120_000);

  it("rpc mode: an MCP tool's progress notifications arrive as tool_execution_update events", async () => {
    const rpc = startRpc(["--no-session", "--trust-mcp"], { cwd: fx.project, env: fx.env });
    try {
      rpc.send({ id: "p1", type: "prompt", message: "long job" });
      const update = await rpc.waitFor(
        (l) => l.type === "tool_execution_update" && l.toolName === "mcp__everything__trigger-long-running-operation",
        "a progress update",
      );
      expect(JSON.stringify(update.partialResult)).toContain("progress 1/3");
      const end = await rpc.waitFor((l) => l.type === "agent_end", "the run to end");
      expect(JSON.stringify(end)).toContain("Long running operation completed");
    } finally {
      expect(await rpc.close()).toBe(0);
    }
    expect(markedProcesses()).toEqual([]);
  }, 120_000);

  it("a tiller process killed with SIGKILL mid-call leaves no MCP server behind (they exit on stdin EOF)", async () => {
    const child = spawn(
      CLI_COMMAND[0]!,
      [...CLI_COMMAND.slice(1), "-p", "--no-session", "--trust-mcp", "endless job"],
      {
        cwd: fx.project,
        env: { ...process.env, ...fx.env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const exited = new Promise((r) => child.once("exit", r));
    try {
      await waitFor(() => markedProcesses().length > 0, "the MCP server to start", 60_000);
      // The run is under way (the model has been asked; its answer starts the endless call).
      await waitFor(() => requestsFor("endless job").length > 0, "the model request", 60_000);
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
    await waitFor(() => markedProcesses().length === 0, "the orphaned server to exit", 20_000);
  }, 120_000);

  it("tiller mcp list shows each server's state, tools and errors", async () => {
    const r = await runCli(["mcp", "list"], { cwd: fx.project, env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^everything {2}connected {2}\(stdio, project · mcp-servers\/everything/m);
    expect(r.stdout).toContain("mcp__everything__get-sum");
    expect(r.stdout).toMatch(/^ghost {2}failed/m);
    expect(r.stdout).toContain("error: command not found: tiller-no-such-mcp-command");
    const json = await runCli(["mcp", "list", "--json"], { cwd: fx.project, env: fx.env });
    const parsed = JSON.parse(json.stdout) as { servers: { name: string; state: string }[] };
    expect(parsed.servers.map((s) => [s.name, s.state])).toEqual([
      ["everything", "connected"],
      ["ghost", "failed"],
    ]);
    expect(markedProcesses()).toEqual([]);
  }, 120_000);
});
