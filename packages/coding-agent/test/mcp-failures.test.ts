/**
 * MCP servers that fail never break a run: a command that does not exist, a server killed mid-call (restarted
 * with backoff), a tool that hangs past its timeout, a server that answers garbage; abort sends
 * notifications/cancelled; list_changed refreshes the tools; servers stop with the manager (no orphans).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Agent } from "@tiller/agent";
import {
  type FauxProviderRegistration,
  fauxAssistantMessage,
  fauxToolCall,
  registerFauxProvider,
  type ToolResultMessage,
} from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type McpEvent, McpManager } from "../src/mcp/index.js";
import { buildToolPipeline } from "../src/tools/index.js";
import {
  DYNAMIC,
  definition,
  EVERYTHING,
  everythingStdio,
  GARBAGE,
  startEverythingHttp,
  waitFor,
} from "./mcp-helpers/servers.js";
import { processAlive, tempDir } from "./tool-helpers.js";

let faux: FauxProviderRegistration;
beforeEach(() => {
  faux = registerFauxProvider();
});
afterEach(() => faux.unregister());

function results(agent: Agent): ToolResultMessage[] {
  return agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}
/** Live processes whose command line holds `marker`. */
function markedPids(marker: string): number[] {
  if (!existsSync("/proc")) return [];
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker) && processAlive(Number(pid));
      } catch {
        return false;
      }
    })
    .map(Number);
}

function text(r: ToolResultMessage): string {
  return r.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
}

describe("MCP failures", () => {
  it("a command that does not exist is reported once; the other server's tools keep working", async () => {
    const events: McpEvent[] = [];
    const manager = new McpManager([
      definition("ghost", { command: "tiller-no-such-mcp-server-xyz", args: [] }),
      definition("everything", everythingStdio()),
    ]);
    manager.subscribe((e) => events.push(e));
    try {
      await manager.start();
      const status = Object.fromEntries(manager.status().map((s) => [s.name, s]));
      expect(status.ghost).toMatchObject({
        state: "failed",
        error: "command not found: tiller-no-such-mcp-server-xyz",
      });
      expect(status.everything!.state).toBe("connected");
      const problems = events.filter((e) => e.type === "mcp_server_problem");
      expect(problems).toEqual([
        { type: "mcp_server_problem", server: "ghost", message: "command not found: tiller-no-such-mcp-server-xyz" },
      ]);
      const tools = buildToolPipeline({ base: [], extra: manager.tools(), provider: faux.api });
      faux.setResponses([
        fauxAssistantMessage(fauxToolCall("mcp__everything__echo", { message: "still here" })),
        fauxAssistantMessage("ok"),
      ]);
      const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
      await agent.prompt("go");
      expect(text(results(agent)[0]!)).toBe("Echo: still here");
      expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    } finally {
      await manager.stop();
    }
  }, 60_000);

  it("a server killed mid-call: the call is a clear error, the run goes on, the server restarts and serves the next call", async () => {
    const events: McpEvent[] = [];
    const manager = new McpManager([definition("everything", everythingStdio())], { restartBaseDelayMs: 200 });
    manager.subscribe((e) => events.push(e));
    try {
      await manager.start();
      const firstPid = manager.status()[0]!.pid!;
      expect(processAlive(firstPid)).toBe(true);
      const tools = buildToolPipeline({ base: [], extra: manager.tools(), provider: faux.api });
      faux.setResponses([
        fauxAssistantMessage(
          fauxToolCall("mcp__everything__trigger-long-running-operation", { duration: 30, steps: 30 }),
        ),
        fauxAssistantMessage(fauxToolCall("mcp__everything__echo", { message: "after restart" })),
        fauxAssistantMessage("recovered"),
      ]);
      const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
      // Kill the server once the long call has reported progress (it is certainly running then).
      agent.subscribe((e) => {
        if (e.type === "tool_execution_update" && processAlive(firstPid)) process.kill(firstPid, "SIGKILL");
      });
      await agent.prompt("go");
      const r = results(agent);
      expect(r[0]!.isError).toBe(true);
      expect(text(r[0]!)).toMatch(/MCP server "everything" stopped during the call to trigger-long-running-operation/);
      expect(r[1]!.isError).toBe(false);
      expect(text(r[1]!)).toBe("Echo: after restart");
      expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
      const status = manager.status()[0]!;
      expect(status.state).toBe("connected");
      expect(status.restarts).toBe(1);
      expect(status.pid).not.toBe(firstPid);
      // Reported once, then the recovery.
      expect(events.filter((e) => e.type !== "mcp_tools_changed").map((e) => e.type)).toEqual([
        "mcp_server_problem",
        "mcp_server_recovered",
      ]);
    } finally {
      await manager.stop();
    }
  }, 90_000);

  it("a remote server that goes away: a clear error, then the client reconnects when it is back", async () => {
    let http = await startEverythingHttp("streamableHttp");
    const port = new URL(http.url).port;
    const events: McpEvent[] = [];
    const manager = new McpManager([definition("remote", { type: "http", url: http.url })], {
      restartBaseDelayMs: 200,
      restartMaxDelayMs: 500,
      maxRestartAttempts: 50,
    });
    manager.subscribe((e) => events.push(e));
    try {
      await manager.start();
      const echo = manager.tools().find((t) => t.name === "mcp__remote__echo")!;
      expect((await echo.execute("1", { message: "one" })).content).toEqual([{ type: "text", text: "Echo: one" }]);
      await http.close();
      await expect(echo.execute("2", { message: "two" })).rejects.toThrow(/MCP server "remote"/);
      await waitFor(() => manager.status()[0]!.state !== "connected", "the loss to be noticed");
      http = await startEverythingHttp("streamableHttp", Number(port));
      await waitFor(() => manager.status()[0]!.state === "connected", "the reconnection");
      expect((await echo.execute("3", { message: "three" })).content).toEqual([{ type: "text", text: "Echo: three" }]);
      expect(events.filter((e) => e.type === "mcp_server_problem")).toHaveLength(1);
      expect(events.some((e) => e.type === "mcp_server_recovered")).toBe(true);
    } finally {
      await manager.stop();
      await http.close();
    }
  }, 90_000);

  it("garbage mid-session: a stray line on stdout is ignored, a malformed result is a clear error, the server goes on", async () => {
    const manager = new McpManager([definition("dyn", { command: process.execPath, args: [DYNAMIC] })]);
    try {
      await manager.start();
      const tools = buildToolPipeline({ base: [], extra: manager.tools(), provider: faux.api });
      faux.setResponses([
        fauxAssistantMessage(fauxToolCall("mcp__dyn__spew", {})),
        fauxAssistantMessage(fauxToolCall("mcp__dyn__bad_result", {})),
        fauxAssistantMessage(fauxToolCall("mcp__dyn__spew", {})),
        fauxAssistantMessage("done"),
      ]);
      const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
      await agent.prompt("go");
      const r = results(agent);
      expect(text(r[0]!)).toBe("answered after garbage");
      expect(r[1]!.isError).toBe(true);
      expect(text(r[1]!)).toMatch(/^MCP server "dyn" (failed on|rejected) bad_result: /);
      expect(text(r[2]!)).toBe("answered after garbage");
      expect(manager.status()[0]!.state).toBe("connected");
    } finally {
      await manager.stop();
    }
  }, 60_000);

  it("a tool that hangs past its timeout returns a timeout error; a garbage-speaking server fails its start-up", async () => {
    const manager = new McpManager(
      [
        definition("slow", everythingStdio({ timeout: 800 })),
        definition("garbage", { command: process.execPath, args: [GARBAGE], startupTimeout: 1500 }),
      ],
      { maxRestartAttempts: 1 },
    );
    try {
      await manager.start();
      const status = Object.fromEntries(manager.status().map((s) => [s.name, s]));
      expect(status.garbage!.state).toBe("failed");
      expect(status.garbage!.error).toBe(
        "did not start within 1.5 s (no valid answer to initialize or tools/list) (gave up after 1 attempt)",
      );
      expect(status.garbage!.tools).toEqual([]);
      const tools = buildToolPipeline({ base: [], extra: manager.tools(), provider: faux.api });
      faux.setResponses([
        // One step of 20 s: no progress notification, so the 0.8 s timeout is reached.
        fauxAssistantMessage(fauxToolCall("mcp__slow__trigger-long-running-operation", { duration: 20, steps: 1 })),
        fauxAssistantMessage(fauxToolCall("mcp__slow__echo", { message: "fine" })),
        fauxAssistantMessage("done"),
      ]);
      const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
      const started = Date.now();
      await agent.prompt("go");
      const r = results(agent);
      expect(r[0]!.isError).toBe(true);
      expect(text(r[0]!)).toContain('MCP server "slow" did not answer trigger-long-running-operation within 0.8 s');
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(text(r[1]!)).toBe("Echo: fine");
    } finally {
      await manager.stop();
    }
  }, 60_000);

  it("abort mid-call sends notifications/cancelled to the server and ends the run promptly", async () => {
    const { dir, cleanup } = tempDir("tiller-mcp-cancel-");
    const log = join(dir, "cancel.log");
    const manager = new McpManager([
      definition("dyn", { command: process.execPath, args: [DYNAMIC], env: { CANCEL_LOG: log } }),
    ]);
    try {
      await manager.start();
      const tools = buildToolPipeline({ base: [], extra: manager.tools(), provider: faux.api });
      faux.setResponses([fauxAssistantMessage(fauxToolCall("mcp__dyn__wait_forever", {})), fauxAssistantMessage("x")]);
      const agent = new Agent({ initialState: { model: faux.getModel(), tools } });
      agent.subscribe((e) => {
        if (e.type === "tool_execution_start") setTimeout(() => agent.abort(), 100);
      });
      await agent.prompt("wait");
      expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
      await waitFor(() => {
        try {
          return readFileSync(log, "utf8").includes("cancelled");
        } catch {
          return false;
        }
      }, "the server to see notifications/cancelled");
    } finally {
      await manager.stop();
      cleanup();
    }
  }, 60_000);

  it("notifications/tools/list_changed refreshes the tools; the next run offers the new one", async () => {
    const events: McpEvent[] = [];
    const manager = new McpManager([definition("dyn", { command: process.execPath, args: [DYNAMIC] })]);
    manager.subscribe((e) => events.push(e));
    try {
      await manager.start();
      expect(manager.tools().map((t) => t.name)).toEqual([
        "mcp__dyn__add_tool",
        "mcp__dyn__wait_forever",
        "mcp__dyn__spew",
        "mcp__dyn__bad_result",
      ]);
      const tools = () => buildToolPipeline({ base: [], extra: manager.tools(), provider: faux.api });
      faux.setResponses([
        fauxAssistantMessage(fauxToolCall("mcp__dyn__add_tool", { name: "fresh" })),
        fauxAssistantMessage("added"),
        fauxAssistantMessage(fauxToolCall("mcp__dyn__fresh", {})),
        fauxAssistantMessage("done"),
      ]);
      const agent = new Agent({ initialState: { model: faux.getModel(), tools: tools() } });
      await agent.prompt("add a tool");
      await waitFor(() => manager.tools().some((t) => t.name === "mcp__dyn__fresh"), "the refreshed tool list");
      expect(events.some((e) => e.type === "mcp_tools_changed" && e.tools.includes("mcp__dyn__fresh"))).toBe(true);
      agent.setTools(tools());
      await agent.prompt("use it");
      expect(text(results(agent)[1]!)).toBe("fresh ran");
    } finally {
      await manager.stop();
    }
  }, 60_000);

  it("stop() ends every server process (no orphans), including one mid-restart", async () => {
    const manager = new McpManager(
      [definition("a", everythingStdio()), definition("b", everythingStdio()), definition("c", everythingStdio())],
      { restartBaseDelayMs: 60_000 },
    );
    await manager.start();
    const pids = manager.status().map((s) => s.pid!);
    expect(pids.every((p) => typeof p === "number" && processAlive(p))).toBe(true);
    process.kill(pids[2]!, "SIGKILL"); // c crashes: a restart is pending
    await waitFor(() => manager.status()[2]!.state === "restarting", "c to be restarting");
    await manager.stop();
    await waitFor(() => pids.every((p) => !processAlive(p)), "all server processes to exit", 15_000);
    expect(manager.status().map((s) => s.state)).toEqual(["stopped", "stopped", "stopped"]);
  }, 60_000);

  it("stop() during start-up leaves no process behind", async () => {
    const { dir, cleanup } = tempDir("tiller-mcp-early-stop-");
    const marker = join(dir, "marker");
    const manager = new McpManager([definition("early", everythingStdio({ args: [EVERYTHING, "stdio", marker] }))]);
    try {
      const starting = manager.start();
      await manager.stop();
      await starting;
      await waitFor(() => markedPids(marker).length === 0, "no server process left", 15_000);
      expect(manager.status()[0]!.state).toBe("stopped");
    } finally {
      cleanup();
    }
  }, 60_000);
});
