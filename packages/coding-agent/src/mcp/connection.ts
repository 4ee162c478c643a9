/**
 * One MCP server, supervised: connect (start, `initialize`, list tools) within a start-up timeout, follow
 * `notifications/tools/list_changed`, call tools with a timeout, the abort signal and progress, and restart
 * with exponential backoff after a crash or a failed start. A problem is reported once per outage; calls made
 * while the server is down get a clear error (or wait for a restart that is already under way).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Progress, Tool } from "@modelcontextprotocol/sdk/types.js";
import { loadMcpSdk, type McpSdk } from "./sdk.js";
import { createTransport, type OpenedTransport, shouldFallBackToSse, transportKind } from "./transport.js";
import type { McpClientOptions, McpEvent, McpServerDefinition, McpServerState, McpServerStatus } from "./types.js";

export const MCP_DEFAULTS: Required<McpClientOptions> = {
  callTimeoutMs: 60_000,
  startupTimeoutMs: 30_000,
  restartBaseDelayMs: 500,
  restartMaxDelayMs: 30_000,
  maxRestartAttempts: 5,
  clientInfo: { name: "tiller", version: "0.1.0" },
};

export interface ConnectionHooks {
  /** The tool list changed (first listing included). */
  toolsChanged: () => void;
  event: (event: McpEvent) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A tool that can only run as an MCP task (not supported here) is not offered to the model. */
function callable(tool: Tool): boolean {
  return (tool as { execution?: { taskSupport?: string } }).execution?.taskSupport !== "required";
}

async function listAllTools(client: Client, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await client.listTools(cursor ? { cursor } : {}, { timeout });
    tools.push(...res.tools);
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  return tools.filter(callable);
}

export class McpConnection {
  readonly name: string;
  private state: McpServerState = "stopped";
  private client: Client | undefined;
  private opened: OpenedTransport | undefined;
  private tools: Tool[] = [];
  private error: string | undefined;
  private serverInfo: { name: string; version: string } | undefined;
  private restarts = 0;
  private failedAttempts = 0;
  private inOutage = false;
  private stopping = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private refreshSeq = 0;
  private appliedSeq = 0;
  private waiters: (() => void)[] = [];
  private readonly options: Required<McpClientOptions>;
  /** Set by the first connection attempt; every later use of SDK values happens after one. */
  private sdk: McpSdk | undefined;

  constructor(
    readonly definition: McpServerDefinition,
    options: McpClientOptions,
    private readonly hooks: ConnectionHooks,
  ) {
    this.name = definition.name;
    this.options = { ...MCP_DEFAULTS, ...options };
  }

  private get callTimeout(): number {
    return this.definition.config.timeout ?? this.options.callTimeoutMs;
  }

  private get startupTimeout(): number {
    return this.definition.config.startupTimeout ?? this.options.startupTimeoutMs;
  }

  /** The server's tools as it lists them (task-only tools left out). */
  listTools(): readonly Tool[] {
    return this.tools;
  }

  status(): Omit<McpServerStatus, "tools"> {
    const pid = this.state === "connected" ? this.opened?.pid() : undefined;
    return {
      name: this.name,
      scope: this.definition.scope,
      transport: this.opened?.kind ?? transportKind(this.definition.config),
      state: this.state,
      restarts: this.restarts,
      ...(this.error !== undefined ? { error: this.error } : {}),
      ...(pid !== undefined ? { pid } : {}),
      ...(this.serverInfo ? { serverInfo: this.serverInfo } : {}),
    };
  }

  /** First connection. Resolves once connected or once the first attempt failed (a retry may follow). */
  start(): Promise<void> {
    this.stopping = false;
    return this.attempt();
  }

  private setState(state: McpServerState): void {
    this.state = state;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private report(message: string): void {
    this.error = message;
    if (this.inOutage) return;
    this.inOutage = true;
    this.hooks.event({ type: "mcp_server_problem", server: this.name, message });
  }

  private async attempt(): Promise<void> {
    this.setState("connecting");
    try {
      await this.connect();
    } catch (err) {
      if (this.stopping) return;
      this.onAttemptFailed(err);
      return;
    }
    if (this.stopping) {
      // stop() ran while this attempt was connecting: the client it made must not outlive it.
      const client = this.client;
      this.client = undefined;
      await client?.close().catch(() => {});
      return;
    }
    this.failedAttempts = 0;
    this.error = undefined;
    this.setState("connected");
    if (this.inOutage) {
      this.inOutage = false;
      this.hooks.event({ type: "mcp_server_recovered", server: this.name });
    }
  }

  private async connect(): Promise<void> {
    const kind = transportKind(this.definition.config);
    try {
      await this.open(kind);
    } catch (err) {
      if (kind !== "http" || !this.sdk || !shouldFallBackToSse(this.sdk, err) || this.stopping) throw err;
      await this.open("sse");
    }
  }

  private async open(kind: "stdio" | "http" | "sse"): Promise<void> {
    const sdk = await loadMcpSdk();
    this.sdk = sdk;
    if (this.stopping) throw new Error("stopped");
    const opened = createTransport(sdk, this.definition.config, kind);
    const client = new sdk.Client(this.options.clientInfo, { capabilities: {} });
    client.onclose = () => this.onClosed(client);
    // Transport errors (a line of garbage on stdout, a dropped event stream) are not fatal on their own; a
    // request they break times out or fails, and a dead process closes the connection.
    client.onerror = () => {};
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      void this.refreshTools(client);
    });
    this.client = client;
    this.opened = opened;
    const timeout = this.startupTimeout;
    try {
      await withTimeout(
        (async () => {
          await client.connect(opened.transport, { timeout });
          await this.refreshTools(client, true);
        })(),
        timeout,
        `did not start within ${seconds(timeout)}`,
      );
      const info = client.getServerVersion();
      this.serverInfo = info ? { name: info.name, version: info.version } : undefined;
    } catch (err) {
      if (this.client === client) this.client = undefined;
      await client.close().catch(() => {});
      throw err;
    }
  }

  /** Re-lists the tools; a failure during a refresh keeps the previous list. */
  private async refreshTools(client: Client, initial = false): Promise<void> {
    const seq = ++this.refreshSeq;
    let tools: Tool[];
    try {
      tools = await listAllTools(client, this.startupTimeout);
    } catch (err) {
      if (initial) throw err;
      this.error = `tool list refresh failed: ${messageOf(err)}`;
      return;
    }
    // Lists can overlap (a list_changed during the first listing): the newest request's answer wins.
    if (seq < this.appliedSeq || client !== this.client) return;
    this.appliedSeq = seq;
    const before = JSON.stringify(this.tools);
    this.tools = tools;
    if (JSON.stringify(tools) !== before) this.hooks.toolsChanged();
  }

  private describeStartFailure(err: unknown): string {
    const e = err as NodeJS.ErrnoException;
    const cfg = this.definition.config;
    if (e?.code === "ENOENT" && "command" in cfg) return `command not found: ${cfg.command}`;
    let text = messageOf(err);
    const sdk = this.sdk;
    if (sdk && err instanceof sdk.McpError && err.code === sdk.ErrorCode.ConnectionClosed)
      text = "exited during start-up";
    // The SDK's own request timeout and ours say the same thing: no valid answer in time.
    const timedOut = sdk && err instanceof sdk.McpError && err.code === sdk.ErrorCode.RequestTimeout;
    if (timedOut || text.startsWith("did not start")) {
      text = `did not start within ${seconds(this.startupTimeout)} (no valid answer to initialize or tools/list)`;
    }
    const tail = this.opened?.stderrTail();
    return tail ? `${text}: ${tail.split("\n").slice(-3).join(" | ")}` : text;
  }

  private onAttemptFailed(err: unknown): void {
    const message = this.describeStartFailure(err);
    this.failedAttempts++;
    const permanent = (err as NodeJS.ErrnoException)?.code === "ENOENT";
    if (permanent || this.failedAttempts >= this.options.maxRestartAttempts) {
      this.report(message);
      this.error = permanent
        ? message
        : `${message} (gave up after ${this.failedAttempts} attempt${this.failedAttempts === 1 ? "" : "s"})`;
      this.setState("failed");
      return;
    }
    this.report(message);
    this.scheduleRestart();
  }

  /** The connection closed. Unexpected once connected: a crash, reported and restarted. */
  private onClosed(client: Client): void {
    if (client !== this.client || this.stopping || this.state !== "connected") return;
    this.client = undefined;
    const tail = this.opened?.stderrTail();
    this.report(
      `connection lost (server exited or closed the connection)${tail ? `: ${tail.split("\n").slice(-3).join(" | ")}` : ""}`,
    );
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    this.setState("restarting");
    const n = Math.max(1, this.failedAttempts);
    const delay = Math.min(this.options.restartBaseDelayMs * 2 ** (n - 1), this.options.restartMaxDelayMs);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.stopping) return;
      this.restarts++;
      void this.attempt();
    }, delay);
    this.retryTimer.unref();
  }

  /** Waits (bounded) for a restart under way; throws a clear error when the server is unavailable. */
  private async ready(signal: AbortSignal | undefined): Promise<Client> {
    if (this.state === "connecting" || this.state === "restarting") {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.callTimeout);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          resolve();
        }
        signal?.addEventListener("abort", done, { once: true });
        const wait = () =>
          this.state === "connecting" || this.state === "restarting" ? this.waiters.push(wait) : done();
        this.waiters.push(wait);
      });
    }
    if (signal?.aborted) throw new Error(`MCP call to server "${this.name}" aborted`);
    if (this.state === "connected" && this.client) return this.client;
    throw new Error(`MCP server "${this.name}" is not available (${this.state}${this.error ? `: ${this.error}` : ""})`);
  }

  /** Calls a tool. Resolves with the server's result (which may have `isError`); throws a clear error otherwise. */
  async callTool(tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    const client = await this.ready(options.signal);
    const timeout = this.callTimeout;
    try {
      return (await client.callTool({ name: tool, arguments: args }, this.sdk?.CallToolResultSchema, {
        timeout,
        // A server reporting progress is alive: each notification restarts the timeout.
        resetTimeoutOnProgress: true,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      })) as CallToolResult;
    } catch (err) {
      throw this.describeCallError(err, tool, timeout, options.signal);
    }
  }

  private describeCallError(err: unknown, tool: string, timeout: number, signal: AbortSignal | undefined): Error {
    const server = `MCP server "${this.name}"`;
    if (signal?.aborted) return new Error(`MCP tool ${tool} on server "${this.name}" aborted`);
    const sdk = this.sdk;
    if (sdk && err instanceof sdk.McpError) {
      if (err.code === sdk.ErrorCode.RequestTimeout) {
        return new Error(
          `${server} did not answer ${tool} within ${seconds(timeout)} (timeout; raise "timeout" in its entry if the tool needs longer)`,
        );
      }
      if (err.code === sdk.ErrorCode.ConnectionClosed) {
        return new Error(
          `${server} stopped during the call to ${tool} (${this.error ?? "connection closed"}); it is being restarted`,
        );
      }
      return new Error(`${server} rejected ${tool}: ${err.message}`);
    }
    // A remote server that went away: reconnect in the background so the next call can succeed.
    if (
      this.opened?.kind !== "stdio" &&
      this.state === "connected" &&
      !(err instanceof Error && err.name === "ZodError")
    ) {
      const client = this.client;
      this.client = undefined;
      void client?.close().catch(() => {});
      this.report(`unreachable: ${messageOf(err)}`);
      this.scheduleRestart();
    }
    return new Error(`${server} failed on ${tool}: ${messageOf(err)}`);
  }

  /** Stops the server (the process is ended) and any pending restart. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.client;
    this.client = undefined;
    this.setState("stopped");
    await client?.close().catch(() => {});
  }

  /** Synchronous last resort at process exit: signal a stdio server that is still running. */
  killNow(): void {
    const pid = this.opened?.pid();
    if (pid !== undefined && this.state !== "stopped") {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
  }
}
