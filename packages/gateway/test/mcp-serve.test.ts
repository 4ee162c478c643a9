/**
 * `tiller mcp serve` driven by the MCP SDK's own client, over stdio and over streamable HTTP with a token, in
 * front of a real gateway process and a mock provider: list sessions, read history, send a message (reply
 * streamed as progress notifications), abort a run (by the abort_run tool and by cancelling the call).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import { type GatewayProc, makeHome, ROOT, removeHome, spawnGateway, startMockProvider } from "./gateway-harness.js";

const SERVE_CLI = join(ROOT, "packages/gateway/src/mcp/mcp-serve-command.ts");
const TILLER_CLI = join(ROOT, "packages/coding-agent/src/cli.ts");
const SOURCE = ["--conditions=tiller-source", "--import", "tsx", SERVE_CLI, "serve"];

let mock: MockServer;
let gw: GatewayProc;
let home: string;

beforeAll(async () => {
  mock = await startMockProvider();
  home = makeHome({ mockBaseUrl: mock.baseUrl });
  gw = await spawnGateway(home);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await mock.close();
  removeHome(home);
});

type TextResult = { content: { type: string; text?: string }[]; isError?: boolean; structuredContent?: unknown };
const textOf = (r: unknown) => (r as TextResult).content.map((c) => c.text ?? "").join("");
/** The harness mock answers a plain message with "echo: <message>" in three deltas. */
const expectedReply = (message: string) => `echo: ${message}`;

describe("tiller mcp serve over stdio", () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: "test-client", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...SOURCE, "--url", gw.url],
        cwd: ROOT,
        env: { ...(process.env as Record<string, string>), TILLER_HOME: home },
        stderr: "pipe",
      }),
    );
  }, 60_000);
  afterAll(() => client?.close());

  it("lists its four tools with their schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["abort_run", "send_message", "session_history", "sessions_list"]);
    const send = tools.find((t) => t.name === "send_message")!;
    expect(send.inputSchema).toMatchObject({ type: "object", required: ["sessionKey", "message"] });
  });

  it("send_message streams the reply as progress and returns it; sessions_list and session_history see it", async () => {
    const progress: string[] = [];
    const r = await client.callTool(
      { name: "send_message", arguments: { sessionKey: "mcp-demo", message: "[slow:4:150] hello over mcp" } },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? ""), timeout: 60_000 },
    );
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toBe("d0 d1 d2 d3");
    // One notification per delta, in order, while the run streams (the SDK client may drop one that arrives in
    // the same read as the result, so the last one is not required).
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.slice(0, 3)).toEqual(["d0 ", "d1 ", "d2 "]);
    expect(r.structuredContent).toMatchObject({ status: "ok" });

    const list = JSON.parse(textOf(await client.callTool({ name: "sessions_list", arguments: {} }))) as {
      sessions: { key: string }[];
    };
    expect(list.sessions.map((s) => s.key)).toContain("agent:main:mcp-demo");
    const history = JSON.parse(
      textOf(await client.callTool({ name: "session_history", arguments: { sessionKey: "mcp-demo" } })),
    ) as { messages: { role: string; content: unknown }[] };
    expect(history.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(history.messages[0]!.content)).toContain("hello over mcp");
    expect(JSON.stringify(history.messages[1]!.content)).toContain("d0 d1 d2 d3");
  }, 60_000);

  it("bad arguments are an error result naming the key", async () => {
    const r = await client.callTool({ name: "send_message", arguments: { sessionKey: "x" } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("message");
  });

  it("abort_run stops a running send_message, which returns as not ok", async () => {
    const pending = client.callTool(
      { name: "send_message", arguments: { sessionKey: "mcp-abort", message: "[hang] forever" } },
      undefined,
      { timeout: 60_000 },
    );
    // Abort once the run is really streaming (its first delta reached the gateway's history is not needed).
    let aborted: { aborted?: boolean } = {};
    for (let i = 0; i < 200 && !aborted.aborted; i++) {
      await new Promise((r) => setTimeout(r, 100));
      aborted = JSON.parse(
        textOf(await client.callTool({ name: "abort_run", arguments: { sessionKey: "mcp-abort" } })),
      ) as { aborted?: boolean };
    }
    expect(aborted.aborted).toBe(true);
    const r = await pending;
    expect(r.isError).toBe(true);
  }, 60_000);

  it("cancelling the MCP call (notifications/cancelled) aborts the gateway run", async () => {
    const controller = new AbortController();
    let started = false;
    const call = client
      .callTool({ name: "send_message", arguments: { sessionKey: "mcp-cancel", message: "[hang] again" } }, undefined, {
        signal: controller.signal,
        timeout: 60_000,
        onprogress: () => {
          if (!started) {
            started = true;
            controller.abort();
          }
        },
      })
      .catch((e: unknown) => e);
    expect(await call).toBeInstanceOf(Error);
    expect(started).toBe(true);
    // The run ends: a new message to the same session is answered (it would queue behind a live run otherwise).
    const r = await client.callTool(
      { name: "send_message", arguments: { sessionKey: "mcp-cancel", message: "after cancel" } },
      undefined,
      { timeout: 60_000 },
    );
    expect(textOf(r)).toBe(expectedReply("after cancel"));
  }, 90_000);
});

describe("tiller mcp serve through the tiller CLI", () => {
  it("`tiller mcp serve` runs tiller-mcp git-style (found on PATH) and serves the gateway to an SDK client", async () => {
    // A tiller-mcp on PATH that runs this checkout's source (node_modules/.bin has one after npm install).
    const bin = mkdtempSync(join(tmpdir(), "tiller-mcp-bin-"));
    const shim = join(bin, "tiller-mcp");
    writeFileSync(
      shim,
      `#!/bin/sh\nexec '${process.execPath}' ${SOURCE.slice(0, -1)
        .map((a) => `'${a}'`)
        .join(" ")} "$@"\n`,
    );
    chmodSync(shim, 0o755);
    const client = new Client({ name: "cli-client", version: "1.0.0" });
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ["--conditions=tiller-source", "--import", "tsx", TILLER_CLI, "mcp", "serve", "--url", gw.url],
          cwd: ROOT,
          env: { ...(process.env as Record<string, string>), TILLER_HOME: home, PATH: `${bin}:${process.env.PATH}` },
          stderr: "pipe",
        }),
      );
      const r = await client.callTool(
        { name: "send_message", arguments: { sessionKey: "mcp-cli", message: "via tiller" } },
        undefined,
        { timeout: 60_000 },
      );
      expect(textOf(r)).toBe(expectedReply("via tiller"));
    } finally {
      await client.close();
      rmSync(bin, { recursive: true, force: true });
    }
  }, 90_000);
});

describe("tiller mcp serve over streamable HTTP", () => {
  let proc: ChildProcess;
  let url: string;
  beforeAll(async () => {
    proc = spawn(process.execPath, [...SOURCE, "--url", gw.url, "--http", "0", "--http-token", "s3cret"], {
      cwd: ROOT,
      env: { ...process.env, TILLER_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = "";
      let err = "";
      proc.stdout!.on("data", (d: Buffer) => {
        out += d;
        const m = /mcp listening (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      proc.stderr!.on("data", (d: Buffer) => (err += d));
      proc.once("exit", (code) => reject(new Error(`tiller mcp serve exited ${code}: ${err}`)));
    });
  }, 60_000);
  afterAll(async () => {
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await exited;
    }
  });

  it("binds 127.0.0.1; without the token a client is refused; with it, send_message streams progress", async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const noToken = new Client({ name: "intruder", version: "1" });
    await expect(noToken.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(/401|nauthorized/);

    const client = new Client({ name: "test-client", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: "Bearer s3cret" } } }),
    );
    try {
      const progress: string[] = [];
      const r = await client.callTool(
        { name: "send_message", arguments: { sessionKey: "mcp-http", message: "[slow:3:150] hi via http" } },
        undefined,
        { onprogress: (p) => progress.push(p.message ?? ""), timeout: 60_000 },
      );
      expect(textOf(r)).toBe("d0 d1 d2");
      expect(progress.slice(0, 2)).toEqual(["d0 ", "d1 "]);
    } finally {
      await client.close();
    }
  }, 60_000);
});
