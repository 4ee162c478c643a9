/**
 * Public types of the MCP client: server definitions, their state as shown by `tiller mcp list` and `/mcp`,
 * and the events the manager reports.
 */
import type { McpServerConfig } from "./config-schema.js";

export type { McpRemoteServerConfig, McpServerConfig, McpStdioServerConfig } from "./config-schema.js";

/** `user`: `$TILLER_HOME/settings.json`, runs without asking. `project`: `.mcp.json` or `.tiller/settings.json`, runs only once trusted. */
export type McpServerScope = "user" | "project";

/** One configured server after loading and `${VAR}` expansion. */
export interface McpServerDefinition {
  name: string;
  /** The entry with variables expanded and `cwd` made absolute. */
  config: McpServerConfig;
  scope: McpServerScope;
  /** The file that defines it. */
  file: string;
  /** The folder whose configuration defined it (the working folder). */
  projectRoot: string;
  /** Hash of the entry as written; trust in a project server is tied to it, so an edited entry asks again. */
  fingerprint: string;
}

/**
 * - `connecting`: starting / initializing / listing tools.
 * - `connected`: tools available.
 * - `restarting`: lost (crash, closed connection, failed start) and waiting for the next attempt (backoff).
 * - `failed`: given up (command not found, or too many failed attempts); its tools return an error.
 * - `untrusted`: a project server the user has not trusted; never started.
 * - `stopped`: stopped with the session.
 */
export type McpServerState = "connecting" | "connected" | "restarting" | "failed" | "untrusted" | "stopped";

/** A snapshot of one server. */
export interface McpServerStatus {
  name: string;
  scope: McpServerScope;
  transport: "stdio" | "http" | "sse";
  state: McpServerState;
  /** Agent tool names (`mcp__<server>__<tool>`), as offered to the model. */
  tools: string[];
  /** The last problem, in words (why it failed, crashed or is untrusted). */
  error?: string;
  /** Restarts after a crash or failed start since the session began. */
  restarts: number;
  /** Process id of a running stdio server. */
  pid?: number;
  /** The server's name and version from its `initialize` answer. */
  serverInfo?: { name: string; version: string };
}

/** What the manager reports. A problem is reported once per outage, not once per retry. */
export type McpEvent =
  | { type: "mcp_tools_changed"; server: string; tools: string[] }
  | { type: "mcp_server_problem"; server: string; message: string }
  | { type: "mcp_server_recovered"; server: string };

export type McpEventListener = (event: McpEvent) => void;

/** Timing and identity of the client; every field has a default. */
export interface McpClientOptions {
  /** Per-call timeout when the server entry sets none (default 60 000 ms). */
  callTimeoutMs?: number;
  /** Start-up timeout when the server entry sets none (default 30 000 ms). */
  startupTimeoutMs?: number;
  /** First restart delay after a crash (default 500 ms); doubles per failed attempt. */
  restartBaseDelayMs?: number;
  /** Longest restart delay (default 30 000 ms). */
  restartMaxDelayMs?: number;
  /** Consecutive failed attempts before giving up (default 5). */
  maxRestartAttempts?: number;
  /** Sent in `initialize` (default `{name: "tiller", version: "0.1.0"}`). */
  clientInfo?: { name: string; version: string };
}
