// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * MCP servers in a real gateway process: `mcp.servers` in tiller.json (server-everything over stdio, plus a
 * command that does not exist), MCP tools in runs through the gateway's tool policy and plugin
 * before_tool_call / after_tool_call, MCP state in `status`, and the servers stopped with the gateway.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockReply, type MockServer, startOpenAIMock } from "../../ai/test/helpers/mock-server.js";
import { openaiChatEvents } from "../../ai/test/helpers/vendor-events.js";
import { connectClient, type GatewayProc, makeHome, removeHome, spawnGateway, until } from "./gateway-harness.js";

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
const marker = `tiller-gw-mcp-${randomUUID()}`;

let mock: MockServer;
let gw: GatewayProc;
let home: string;

const usage = { input: 10, output: 5 };
const text = (parts: string[]): MockReply => ({ events: openaiChatEvents({ text: parts, usage }) });
const call = (name: string, args: Record<string, unknown>): MockReply => ({
  events: openaiChatEvents({
    toolCalls: [{ id: `call_${randomUUID().slice(0, 8)}`, name, args: [JSON.stringify(args)] }],
    finish: "tool",
    usage,
  }),
});
const contentText = (c: unknown): string =>
  typeof c === "string" ? c : Array.isArray(c) ? c.map((p: any) => p.text ?? "").join("") : "";

function script(body: any): MockReply {
  const messages: any[] = body?.messages ?? [];
  const last = messages.at(-1);
  const user = contentText([...messages].reverse().find((m) => m.role === "user")?.content);
  if (last?.role === "tool") return text(["tool said: ", contentText(last.content).trim()]);
  if (user.includes("[sum]")) return call("mcp__everything__get-sum", { a: 19, b: 23 });
  if (user.includes("[secret]")) return call("mcp__everything__echo", { message: "a secret" });
  if (user.includes("[env]")) return call("mcp__everything__get-env", {});
  return text([`echo: ${user}`]);
}

function markedProcesses(): number[] {
  if (!existsSync("/proc")) return []; // no /proc (macOS): nothing to scan
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((pid) => {
      try {
        return (
          readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker) &&
          !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"))
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

function hookLog(): any[] {
  const file = join(home, "mcp-hook-log.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

beforeAll(async () => {
  mock = await startOpenAIMock((req) => script(req.body));
  home = makeHome({
    mockBaseUrl: mock.baseUrl,
    config: {
      tools: { enabled: true, deny: ["mcp__everything__get-env"] },
      mcp: {
        servers: {
          everything: { command: process.execPath, args: [EVERYTHING, "stdio", marker] },
          ghost: { command: "tiller-no-such-mcp-server" },
        },
      },
    },
  });
  mkdirSync(join(home, "plugins"), { recursive: true });
  writeFileSync(
    join(home, "plugins", "mcp-guard.mjs"),
    `import { appendFileSync } from "node:fs";
import { join } from "node:path";
const log = (hook, e) => appendFileSync(join(process.env.TILLER_HOME, "mcp-hook-log.jsonl"), JSON.stringify({ hook, toolName: e.toolName, params: e.params, error: e.error, result: e.result }) + "\\n");
export default { id: "mcp-guard", register(api) {
  api.on("before_tool_call", (e) => {
    log("before_tool_call", e);
    if (e.toolName.startsWith("mcp__") && String(e.params.message ?? "").includes("secret")) return { block: true, blockReason: "PLUGIN: no secrets to MCP" };
    return undefined;
  });
  api.on("after_tool_call", (e) => { log("after_tool_call", e); });
} };
`,
  );
  gw = await spawnGateway(home);
}, 90_000);

afterAll(async () => {
  await gw?.stop();
  await mock.close();
  removeHome(home);
});

async function run(message: string, sessionKey: string): Promise<{ final: any; requests: any[] }> {
  const { client } = await connectClient(gw.url, { scopes: ["operator.write", "operator.admin"] });
  const before = mock.requests.length;
  try {
    const final: any = await client.request(
      "agent",
      { message, idempotencyKey: randomUUID(), sessionKey },
      { expectFinal: true, timeoutMs: 60_000 },
    );
    return { final, requests: mock.requests.slice(before) };
  } finally {
    await client.close();
  }
}

const toolsOf = (req: any): string[] => (req.body?.tools ?? []).map((t: any) => t.function?.name);
const finalText = (final: any): string => (final.result?.payloads ?? []).map((p: any) => p.text).join("");

describe("MCP servers in the gateway", () => {
  it("status lists the servers; a missing command is failed and logged once, the gateway serves anyway", async () => {
    const { client } = await connectClient(gw.url, { scopes: ["operator.read"] });
    try {
      // The gateway listens before its MCP servers are up; status shows them connecting, then connected.
      let status: any;
      const settled = async () => {
        status = await client.request("status", {});
        return status.mcp.servers.every((s: any) => s.state !== "connecting");
      };
      for (let i = 0; i < 300 && !(await settled()); i++) await new Promise((r) => setTimeout(r, 100));
      const byName = Object.fromEntries(status.mcp.servers.map((s: any) => [s.name, s]));
      expect(byName.everything).toMatchObject({ state: "connected", transport: "stdio" });
      expect(byName.everything.tools).toContain("mcp__everything__get-sum");
      expect(byName.ghost).toMatchObject({ state: "failed", error: "command not found: tiller-no-such-mcp-server" });
    } finally {
      await client.close();
    }
    expect(gw.stderr.join("").match(/\[mcp\] server "ghost": command not found/g)).toHaveLength(1);
  });

  it("an MCP tool runs in a gateway run with plugin before/after_tool_call; the policy's deny removes one", async () => {
    const { final, requests } = await run("[sum] add", "mcp-sum");
    expect(final.status).toBe("ok");
    expect(finalText(final)).toContain("The sum of 19 and 23 is 42.");
    const offered = toolsOf(requests[0]);
    expect(offered).toContain("mcp__everything__get-sum");
    expect(offered).toContain("exec"); // the built-ins are still there
    expect(offered).not.toContain("mcp__everything__get-env"); // tools.deny
    const log = hookLog().filter((l) => l.toolName === "mcp__everything__get-sum");
    expect(log.map((l) => l.hook)).toEqual(["before_tool_call", "after_tool_call"]);
    expect(log[0].params).toEqual({ a: 19, b: 23 });
    expect(JSON.stringify(log[1].result)).toContain("The sum of 19 and 23 is 42.");
  }, 90_000);

  it("a plugin's before_tool_call blocks an MCP tool call; the server never runs it", async () => {
    const { final } = await run("[secret] echo", "mcp-secret");
    expect(final.status).toBe("ok");
    expect(finalText(final)).toContain("PLUGIN: no secrets to MCP");
    expect(finalText(final)).not.toContain("Echo: a secret");
    const after = hookLog().filter((l) => l.hook === "after_tool_call" && l.toolName === "mcp__everything__echo");
    expect(after.every((l) => !JSON.stringify(l.result ?? "").includes("Echo: a secret"))).toBe(true);
  }, 90_000);

  it("the servers stop with the gateway (no orphan process)", async () => {
    expect(markedProcesses().length).toBeGreaterThan(0);
    await gw.stop();
    await until(() => markedProcesses().length === 0, 15_000, "the MCP server processes to exit");
  }, 60_000);
});
