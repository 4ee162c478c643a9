/**
 * `McpManager`: every configured server of a session. Starts them in parallel (each within its start-up
 * timeout), offers their tools as agent tools, forwards events, and stops them all with the session — and, as a
 * last resort, signals any stdio server still running when the process exits, so none is left orphaned.
 */
import type { AgentTool } from "@tiller/agent";
import type { TSchema } from "@tiller/ai";
import { McpConnection } from "./connection.js";
import type { McpToolDetails } from "./result-mapping.js";
import { createMcpAgentTool } from "./tool-adapter.js";
import { transportKind } from "./transport.js";
import type { McpClientOptions, McpEvent, McpEventListener, McpServerDefinition, McpServerStatus } from "./types.js";

export interface McpManagerOptions extends McpClientOptions {
  /** Servers not to start, with the reason shown in their status (e.g. an untrusted project server). */
  blocked?: Map<string, string>;
}

const live = new Set<McpManager>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const m of live) m.killNow();
  });
}

export class McpManager {
  private readonly connections: McpConnection[] = [];
  private readonly blocked: { definition: McpServerDefinition; reason: string }[] = [];
  private readonly listeners = new Set<McpEventListener>();
  private toolCache = new Map<McpConnection, AgentTool<TSchema, McpToolDetails>[]>();

  constructor(definitions: readonly McpServerDefinition[], options: McpManagerOptions = {}) {
    for (const definition of definitions) {
      const reason = options.blocked?.get(definition.name);
      if (reason !== undefined) {
        this.blocked.push({ definition, reason });
        continue;
      }
      const connection: McpConnection = new McpConnection(definition, options, {
        toolsChanged: () => {
          this.toolCache.delete(connection);
          this.emit({
            type: "mcp_tools_changed",
            server: connection.name,
            tools: this.toolsOf(connection).map((t) => t.name),
          });
        },
        event: (e) => this.emit(e),
      });
      this.connections.push(connection);
    }
  }

  /** Listens to tool-list changes and server problems; returns the unsubscribe function. */
  subscribe(listener: McpEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: McpEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  /** Connects every server in parallel; resolves when each is connected or has failed its first attempt. */
  async start(): Promise<void> {
    installExitHook();
    live.add(this);
    await Promise.all(this.connections.map((c) => c.start()));
  }

  private toolsOf(connection: McpConnection): AgentTool<TSchema, McpToolDetails>[] {
    let tools = this.toolCache.get(connection);
    if (!tools) {
      tools = connection.listTools().map((t) => createMcpAgentTool(connection, t));
      this.toolCache.set(connection, tools);
    }
    return tools;
  }

  /**
   * The agent tools of every server that has listed its tools, in configuration order. A server that crashed
   * keeps its tools here: calling one waits for the restart or returns a clear error.
   */
  tools(): AgentTool<TSchema, McpToolDetails>[] {
    return this.connections.flatMap((c) => this.toolsOf(c));
  }

  /** One entry per configured server, blocked ones included. */
  status(): McpServerStatus[] {
    const out: McpServerStatus[] = this.connections.map((c) => ({
      ...c.status(),
      tools: this.toolsOf(c).map((t) => t.name),
    }));
    for (const { definition, reason } of this.blocked) {
      out.push({
        name: definition.name,
        scope: definition.scope,
        transport: transportKind(definition.config),
        state: "untrusted",
        tools: [],
        error: reason,
        restarts: 0,
      });
    }
    return out;
  }

  /** Stops every server and waits until their processes are gone. */
  async stop(): Promise<void> {
    live.delete(this);
    await Promise.all(this.connections.map((c) => c.stop()));
  }

  /** @internal Process-exit hook: signal stdio servers synchronously. */
  killNow(): void {
    for (const c of this.connections) c.killNow();
  }
}
