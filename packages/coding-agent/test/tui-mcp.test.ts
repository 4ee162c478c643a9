/**
 * MCP in the interactive UI (real terminal, tmux): the inline trust question for a project server, `/mcp`
 * status, and an MCP tool call shown like any other tool.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { hasTmux, startTui, type TuiSession } from "./cli-helpers/tmux.js";
import { EVERYTHING } from "./mcp-helpers/servers.js";

if (!hasTmux) console.warn("tui-mcp: SKIPPED — tmux is not installed (apt-get install tmux)");

let server: MockServer;
let fx: CliFixture;
let ui: TuiSession;

beforeAll(async () => {
  if (!hasTmux) return;
  server = await startMockOpenAI((body) => {
    const last = body.messages[body.messages.length - 1]!;
    if (last.role === "tool") return { text: `tool said: ${JSON.stringify(last.content)}` };
    if (lastUserText(body).includes("sum"))
      return { toolCalls: [{ name: "mcp__everything__get-sum", arguments: { a: 20, b: 22 } }] };
    return { text: "hello" };
  });
  fx = makeFixture(server, "tiller-tui-mcp-");
  writeFileSync(
    join(fx.project, ".mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }),
  );
  ui = startTui(fx, "tiller-tui-mcp", ["--no-session"]);
});

afterAll(async () => {
  if (!hasTmux) return;
  ui.kill();
  await server.close();
  fx.cleanup();
});

describe("MCP in the interactive UI", () => {
  it.skipIf(!hasTmux)(
    "asks to trust the project server, shows it in /mcp, runs its tool",
    async () => {
      const { keys, waitFor } = ui;
      const ask = await waitFor((s) => s.includes("Trust and start it? [y/N]"), "the trust question");
      const unwrapped = ask.replace(/\n/g, ""); // long paths wrap at the pane's width
      expect(unwrapped).toContain(`everything (${join(fx.project, ".mcp.json")})`);
      expect(unwrapped).toContain(`${process.execPath} ${EVERYTHING} stdio`);
      keys("y", "Enter");
      await waitFor((s) => s.includes("mock/mock-1") && s.includes("/help"), "the UI to start");
      expect(existsSync(join(fx.home, "mcp-trust.json"))).toBe(true);

      keys("/mcp");
      keys("Enter");
      const status = await waitFor((s) => s.includes("everything  connected"), "/mcp status");
      expect(status).toContain("mcp__everything__get-sum");

      keys("please sum");
      keys("Enter");
      await waitFor((s) => s.includes("The sum of 20 and 22 is 42."), "the MCP tool result", ui.history);
      keys("C-d");
      await waitFor((s) => s.includes("TILLER-EXITED-0"), "a clean exit");
    },
    120_000,
  );
});
