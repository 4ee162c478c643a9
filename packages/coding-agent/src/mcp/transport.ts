/**
 * Transports for one server entry: stdio (a child process), streamable HTTP, and legacy HTTP+SSE. An `http`
 * entry tries streamable HTTP first and falls back to HTTP+SSE when the server answers the first POST with a
 * 4xx status (what an SSE-only server does), as the MCP spec's backwards-compatibility section describes.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "./config-schema.js";
import type { McpSdk } from "./sdk.js";

/** Most recent stderr a stdio server wrote, kept to explain a failed start or a crash. */
const STDERR_TAIL = 2000;

export interface OpenedTransport {
  transport: Transport;
  kind: "stdio" | "http" | "sse";
  /** The last stderr output of a stdio server (empty for remote servers). */
  stderrTail: () => string;
  /** Process id of a stdio server, once started. */
  pid: () => number | undefined;
}

export function transportKind(config: McpServerConfig): "stdio" | "http" | "sse" {
  return "command" in config ? "stdio" : config.type;
}

/** Creates (does not start) the transport for an entry; `kind` overrides `http` for the SSE fallback. */
export function createTransport(sdk: McpSdk, config: McpServerConfig, kind = transportKind(config)): OpenedTransport {
  if ("command" in config) {
    let tail = "";
    const transport = new sdk.StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      // The user's environment, as a shell would give it, plus the entry's variables.
      env: { ...(process.env as Record<string, string>), ...config.env },
      ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    return { transport, kind: "stdio", stderrTail: () => tail.trim(), pid: () => transport.pid ?? undefined };
  }
  const url = new URL(config.url);
  const requestInit: RequestInit = config.headers ? { headers: config.headers } : {};
  const transport =
    kind === "sse"
      ? new sdk.SSEClientTransport(url, {
          requestInit,
          // The GET that opens the event stream needs the headers too (auth tokens).
          eventSourceInit: {
            fetch: (input, init) =>
              fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...config.headers } }),
          },
        })
      : new sdk.StreamableHTTPClientTransport(url, { requestInit });
  return { transport, kind, stderrTail: () => "", pid: () => undefined };
}

/** Whether a failed streamable-HTTP connect means "this is an old HTTP+SSE server": a 4xx other than auth. */
export function shouldFallBackToSse(sdk: McpSdk, error: unknown): boolean {
  if (!(error instanceof sdk.StreamableHTTPError)) return false;
  const code = error.code ?? 0;
  return code >= 400 && code < 500 && code !== 401 && code !== 403;
}
