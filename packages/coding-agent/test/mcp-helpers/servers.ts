/** Launch definitions for the reference MCP servers (and the two fixtures) used by the MCP tests. */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { McpServerConfig, McpServerDefinition } from "../../src/mcp/index.js";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

export const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
export const FILESYSTEM = join(
  dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")),
  "dist",
  "index.js",
);
export const DYNAMIC = join(here, "dynamic-server.mjs");
export const GARBAGE = join(here, "garbage-server.mjs");

export function definition(
  name: string,
  config: McpServerConfig,
  scope: "user" | "project" = "user",
): McpServerDefinition {
  return { name, config, scope, file: "(test)", projectRoot: process.cwd(), fingerprint: name };
}

export function everythingStdio(extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [EVERYTHING, "stdio"], ...extra } as McpServerConfig;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** server-everything in its HTTP modes (`streamableHttp` serves /mcp, `sse` serves /sse + /message). */
export async function startEverythingHttp(
  mode: "streamableHttp" | "sse",
  fixedPort?: number,
): Promise<{ url: string; child: ChildProcess; close: () => Promise<void> }> {
  const port = fixedPort ?? (await freePort());
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      if (/listening on port|running on/i.test(err)) resolve();
    });
    child.stdout!.on("data", (d: Buffer) => {
      if (/listening on port|running on/i.test(d.toString())) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server-everything ${mode} exited (${code}): ${err}`)));
  });
  const path = mode === "sse" ? "/sse" : "/mcp";
  return {
    url: `http://127.0.0.1:${port}${path}`,
    child,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** Resolves when `check` holds, polling on a short interval (bounded by the test timeout). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
