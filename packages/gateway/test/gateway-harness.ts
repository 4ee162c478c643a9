/**
 * Test harness: a real gateway process (spawned from TypeScript source with tsx) on 127.0.0.1, a temp
 * TILLER_HOME, and a loopback mock OpenAI-compatible provider configured through that home's models.json.
 * The mock reads directives from the last user message:
 *   [slow:N:MS]  N text deltas, MS apart        [hang]  two deltas, then no more until the client leaves
 *   [big:N:SIZE] N text deltas of SIZE characters each, as fast as the socket takes them (megabytes of reply)
 *   [tool:read:PATH]  a read tool call (then, after the tool result, "done: <result>")
 *   [fail]       HTTP 400                       otherwise: "echo: <message>" in three deltas
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type MockReply, type MockServer, startOpenAIMock } from "../../ai/test/helpers/mock-server.js";
import { openaiChatEvents } from "../../ai/test/helpers/vendor-events.js";
import { type ClientOptions, GatewayClient } from "../src/cli/gateway-client.js";
import type { EventFrame } from "../src/protocol/frames.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const GATEWAY_CLI = join(ROOT, "packages/gateway/src/cli/gateway-command.ts");
export const AGENT_CLI = join(ROOT, "packages/gateway/src/cli/agent-command.ts");

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] })?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) return m.content.map((c: { text?: string }) => c.text ?? "").join("");
  }
  return "";
}

/** The `i`th delta of a `[big:N:SIZE]` reply: its number, padded to `size` characters. */
export function bigDelta(i: number, size: number): string {
  const head = `b${i} `;
  return head + "x".repeat(Math.max(0, size - head.length - 1)) + "\n";
}

/**
 * What the kernel holds for a loopback client that stopped reading before the gateway's own send buffer grows:
 * the gateway socket's send buffer (autotuned up to tcp_wmem's max) and the client's receive buffer (tcp_rmem's
 * default; it grows only as the client reads). Elsewhere than Linux, a generous guess.
 */
export function kernelBufferBytes(): number {
  try {
    const field = (file: string, i: number) =>
      Number(readFileSync(`/proc/sys/net/ipv4/${file}`, "utf8").trim().split(/\s+/)[i]);
    const bytes = field("tcp_wmem", 2) + field("tcp_rmem", 1);
    if (Number.isFinite(bytes) && bytes > 0) return bytes;
  } catch {
    // not Linux
  }
  return 16 * 1024 * 1024;
}

/** The reply the mock gives to `text` (exported so tests can predict it). */
export function mockReply(text: string): MockReply {
  const usage = { input: 10, output: 5 };
  if (text.includes("[fail]")) {
    return { status: 400, json: { error: { message: "mock provider refused", type: "invalid_request_error" } } };
  }
  const tool = /\[tool:(\w+):([^\]]+)\]/.exec(text);
  if (tool) {
    const args = tool[1] === "read" ? { path: tool[2] } : { command: tool[2] };
    return {
      events: openaiChatEvents({
        toolCalls: [{ id: "call_tool1", name: tool[1] as string, args: [JSON.stringify(args)] }],
        finish: "tool",
        usage,
      }),
    };
  }
  const slow = /\[slow:(\d+):(\d+)\]/.exec(text);
  if (slow) {
    const n = Number(slow[1]);
    return {
      events: openaiChatEvents({ text: Array.from({ length: n }, (_, i) => `d${i} `), usage }),
      delayMs: Number(slow[2]),
    };
  }
  const big = /\[big:(\d+):(\d+)\]/.exec(text);
  if (big) {
    const size = Number(big[2]);
    return {
      events: openaiChatEvents({ text: Array.from({ length: Number(big[1]) }, (_, i) => bigDelta(i, size)), usage }),
    };
  }
  if (text.includes("[hang]"))
    return { events: openaiChatEvents({ text: ["hang", "ing", "never"], usage }), hangAfter: 3 };
  const reply = `echo: ${text}`;
  const third = Math.ceil(reply.length / 3);
  return {
    events: openaiChatEvents({
      text: [reply.slice(0, third), reply.slice(third, 2 * third), reply.slice(2 * third)],
      usage,
    }),
  };
}

export async function startMockProvider(): Promise<MockServer> {
  return startOpenAIMock((req) => {
    const messages = (req.body as { messages?: { role: string; content: unknown }[] })?.messages ?? [];
    const last = messages.at(-1);
    // After a tool result: answer with what the tool returned.
    if (last?.role === "tool") {
      const content = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
      return { events: openaiChatEvents({ text: ["done: ", content.trim()], usage: { input: 10, output: 5 } }) };
    }
    return mockReply(lastUserText(req.body));
  });
}

export interface GatewayProc {
  url: string;
  port: number;
  home: string;
  proc: ChildProcess;
  stdout: string[];
  stderr: string[];
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL (a crash) and wait for exit. */
  kill(): Promise<void>;
}

export interface HomeOptions {
  config?: Record<string, unknown>;
  mockBaseUrl?: string;
  /** Pricing of mock-1 in dollars per million tokens (models.json `cost`); unpriced when absent. */
  mockCost?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
}

/** A fresh TILLER_HOME with tiller.json and (with a mock) models.json pointing at it. */
export function makeHome(opts: HomeOptions = {}): string {
  const home = mkdtempSync(join(tmpdir(), "tiller-gw-test-"));
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "tiller.json"), JSON.stringify(opts.config ?? {}, null, 2));
  if (opts.mockBaseUrl) {
    writeFileSync(
      join(home, "models.json"),
      JSON.stringify({
        providers: {
          mock: {
            baseUrl: opts.mockBaseUrl,
            api: "openai-completions",
            apiKey: "test-key",
            models: [
              { id: "mock-1", ...(opts.mockCost ? { cost: opts.mockCost } : {}) },
              { id: "mock-small", contextWindow: 4000, maxTokens: 1000 },
            ],
          },
        },
      }),
    );
  }
  return home;
}

/** Spawns `tiller-gateway --port 0 …` on `home` and resolves once it prints its address. */
export function spawnGateway(home: string, args: string[] = []): Promise<GatewayProc> {
  const proc = spawn(
    process.execPath,
    ["--conditions=tiller-source", "--import", "tsx", GATEWAY_CLI, "--port", "0", ...args],
    {
      cwd: ROOT,
      env: { ...process.env, TILLER_HOME: home, TILLER_GATEWAY_TOKEN: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const wait = (): Promise<void> => exited;
  return new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`gateway did not start: ${stderr.join("")}`));
    }, 25_000);
    proc.stderr?.on("data", (d: Buffer) => stderr.push(String(d)));
    proc.stdout?.on("data", (d: Buffer) => {
      const s = String(d);
      stdout.push(s);
      buf += s;
      const m = /listening (ws:\/\/[^\s]+:(\d+))/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1] as string,
          port: Number(m[2]),
          home,
          proc,
          stdout,
          stderr,
          stop: async () => {
            if (proc.exitCode === null) proc.kill("SIGTERM");
            await wait();
          },
          kill: async () => {
            if (proc.exitCode === null) proc.kill("SIGKILL");
            await wait();
          },
        });
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}: ${stderr.join("")}`));
    });
  });
}

/** One gateway on its own home and the loopback mock provider, as a test file starts them. */
export interface MockGateway {
  mock: MockServer;
  gw: GatewayProc;
  /** Stops the gateway and the mock, and removes the home. */
  stop(): Promise<void>;
}

/** Starts the mock provider and a gateway on a fresh home using it; a failed start stops what started. */
export async function startMockGateway(): Promise<MockGateway> {
  const mock = await startMockProvider();
  const home = makeHome({ mockBaseUrl: mock.baseUrl });
  let gw: GatewayProc;
  try {
    gw = await spawnGateway(home);
  } catch (err) {
    await mock.close();
    removeHome(home);
    throw err;
  }
  return {
    mock,
    gw,
    async stop() {
      await gw.stop();
      await mock.close();
      removeHome(home);
    },
  };
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

/** A connected client that records every event frame. */
export async function connectClient(
  url: string,
  opts: ClientOptions = {},
): Promise<{ client: GatewayClient; events: EventFrame[] }> {
  const events: EventFrame[] = [];
  const client = await GatewayClient.connect(url, { ...opts, onEvent: (f) => events.push(f) });
  return { client, events };
}

/** Agent events of one run, in arrival order. */
export function agentEvents(
  events: EventFrame[],
  runId: string,
): { seq: number; stream: string; data: Record<string, unknown> }[] {
  return events
    .filter((e) => e.event === "agent" && (e.payload as { runId: string }).runId === runId)
    .map((e) => e.payload as { seq: number; stream: string; data: Record<string, unknown> });
}

export function until(cond: () => boolean, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = (): void => {
      if (cond()) resolve();
      else if (Date.now() - start > timeoutMs) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 10);
    };
    tick();
  });
}

/** Runs the tiller-agent CLI; resolves with exit code and output. */
export function runAgentCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ["--conditions=tiller-source", "--import", "tsx", AGENT_CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    proc.stdout?.on("data", (d: Buffer) => {
      stdout += String(d);
    });
    proc.stderr?.on("data", (d: Buffer) => {
      stderr += String(d);
    });
    proc.once("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
