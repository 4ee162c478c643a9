/**
 * pi's `RpcClient`: runs the CLI in RPC mode as a child process and drives it with typed calls. Each call sends
 * one JSON line with an id and resolves with the matching response's data; every other line is an event for
 * `onEvent` listeners: the events pi's would see, and Tiller's additions (approvals, `model_changed`) for the
 * listeners that ask for them (`{ tillerEvents: true }`, as `AgentSession.subscribe`). Calls fail with the
 * server's error (Tiller also rejects them when the process exits).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentMessage, ApprovalDecision, PendingApproval, ThinkingLevel } from "@tiller/agent";
import type { ImageContent, Model } from "@tiller/ai";
import type { CoreAgentEvent, SessionStats, TillerEventsOption, TillerSessionEvent } from "../agent-session/events.js";
import { SessionListeners } from "../agent-session/listeners.js";
import { createJsonlReader, toJsonLine } from "../cli/jsonl.js";
import type { CompactionResult } from "../compaction/compact.js";
import type { SourceInfo } from "../extensions/source-info.js";

export interface RpcClientOptions {
  /** Script run with node (default: this package's `bin/tiller.js`). */
  cliPath?: string;
  cwd?: string;
  env?: Record<string, string>;
  provider?: string;
  model?: string;
  /** More CLI arguments. */
  args?: string[];
  /** Node options before the script (Tiller addition: e.g. a loader to run the CLI from source). */
  nodeArgs?: string[];
}

export interface ModelInfo {
  provider: string;
  id: string;
  contextWindow: number;
  reasoning: boolean;
}

/** `get_state`'s answer (pi's shape). */
export interface RpcSessionState {
  model?: Model;
  thinkingLevel: ThinkingLevel;
  isStreaming: boolean;
  isCompacting: boolean;
  steeringMode: "all" | "one-at-a-time";
  followUpMode: "all" | "one-at-a-time";
  sessionFile?: string;
  sessionId: string;
  sessionName?: string;
  autoCompactionEnabled: boolean;
  messageCount: number;
  pendingMessageCount: number;
}

/** A `bash` command's answer (pi's shape). */
export interface BashResult {
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
}

export type RpcCommand = { type: string; id?: string } & Record<string, unknown>;
export type RpcResponse =
  | { type: "response"; id?: string; command: string; success: true; data?: unknown }
  | { type: "response"; id?: string; command: string; success: false; error: string };
/**
 * A listener of pi's events (pi types them as agent-core's `AgentEvent`; the server's session events, such as
 * `queue_update`, arrive too, as in pi). Tiller's approval events and `model_changed` never reach it.
 */
export type RpcEventListener = (event: CoreAgentEvent) => void;
/** A listener of every event line, Tiller's additions included (`onEvent(listener, { tillerEvents: true })`). */
export type RpcTillerEventListener = (event: TillerSessionEvent) => void;
/** What defines a slash command: an extension's command, a prompt template, or a skill. */
export type SlashCommandSource = "extension" | "prompt" | "skill";
/** A slash command as `get_commands` lists it (pi's `SlashCommandInfo`). */
export interface SlashCommandInfo {
  name: string;
  description?: string;
  source: SlashCommandSource;
  sourceInfo: SourceInfo;
}
export type RpcSlashCommand = SlashCommandInfo;

const DEFAULT_CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "tiller.js");

export class RpcClient {
  private child: ChildProcessWithoutNullStreams | undefined;
  private stderr = "";
  private nextId = 0;
  private readonly pending = new Map<string, { resolve: (r: RpcResponse) => void; reject: (e: Error) => void }>();
  private readonly listeners = new SessionListeners();
  private exitError: Error | undefined;

  constructor(private readonly options: RpcClientOptions = {}) {}

  /** Spawns the agent process; resolves once it is running. */
  async start(): Promise<void> {
    if (this.child) throw new Error("Client already started");
    const o = this.options;
    const args = ["--mode", "rpc"];
    if (o.provider) args.push("--provider", o.provider);
    if (o.model) args.push("--model", o.model);
    if (o.args) args.push(...o.args);
    const child = spawn(process.execPath, [...(o.nodeArgs ?? []), o.cliPath ?? DEFAULT_CLI, ...args], {
      cwd: o.cwd,
      env: { ...process.env, ...o.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    this.exitError = undefined;
    child.stderr.on("data", (d: Buffer) => {
      this.stderr += d.toString("utf8");
    });
    const reader = createJsonlReader((line) => this.onLine(line));
    child.stdout.on("data", (d: Buffer) => reader.push(d));
    child.on("exit", (code, signal) => {
      this.exitError = new Error(`Agent process exited (${signal ?? `code ${code}`}). Stderr: ${this.stderr}`);
      for (const p of this.pending.values()) p.reject(this.exitError);
      this.pending.clear();
    });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", reject);
    });
  }

  /** Ends the process (SIGTERM, then SIGKILL after a second). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 1000);
      await exited;
      clearTimeout(timer);
    }
    this.pending.clear();
  }

  /**
   * `onEvent(listener)`: the event lines pi's client would hand on. `onEvent(listener, { tillerEvents: true })`:
   * every event line, approval requests (answer them with `resolve_approval`) and `model_changed` too.
   */
  onEvent(listener: RpcEventListener): () => void;
  onEvent(listener: RpcTillerEventListener, options: TillerEventsOption): () => void;
  onEvent(listener: RpcEventListener | RpcTillerEventListener, options?: Partial<TillerEventsOption>): () => void {
    // A pi listener is kept as taking every line: onLine hands it pi's events only.
    return this.listen(listener as RpcTillerEventListener, options?.tillerEvents === true);
  }

  getStderr(): string {
    return this.stderr;
  }

  // ---- commands ----

  async prompt(message: string, images?: ImageContent[]): Promise<void> {
    await this.call({ type: "prompt", message, ...(images ? { images } : {}) });
  }
  async steer(message: string, images?: ImageContent[]): Promise<void> {
    await this.call({ type: "steer", message, ...(images ? { images } : {}) });
  }
  async followUp(message: string, images?: ImageContent[]): Promise<void> {
    await this.call({ type: "follow_up", message, ...(images ? { images } : {}) });
  }
  async abort(): Promise<void> {
    await this.call({ type: "abort" });
  }
  newSession(parentSession?: string): Promise<{ cancelled: boolean }> {
    return this.call({ type: "new_session", ...(parentSession ? { parentSession } : {}) });
  }
  getState(): Promise<RpcSessionState> {
    return this.call({ type: "get_state" });
  }
  setModel(provider: string, modelId: string): Promise<{ provider: string; id: string }> {
    return this.call({ type: "set_model", provider, modelId });
  }
  cycleModel(): Promise<{
    model: { provider: string; id: string };
    thinkingLevel: ThinkingLevel;
    isScoped: boolean;
  } | null> {
    return this.call({ type: "cycle_model" });
  }
  async getAvailableModels(): Promise<ModelInfo[]> {
    return (await this.call<{ models: ModelInfo[] }>({ type: "get_available_models" })).models;
  }
  async setThinkingLevel(level: ThinkingLevel): Promise<void> {
    await this.call({ type: "set_thinking_level", level });
  }
  cycleThinkingLevel(): Promise<{ level: ThinkingLevel } | null> {
    return this.call({ type: "cycle_thinking_level" });
  }
  async setSteeringMode(mode: "all" | "one-at-a-time"): Promise<void> {
    await this.call({ type: "set_steering_mode", mode });
  }
  async setFollowUpMode(mode: "all" | "one-at-a-time"): Promise<void> {
    await this.call({ type: "set_follow_up_mode", mode });
  }
  compact(customInstructions?: string): Promise<CompactionResult> {
    return this.call({ type: "compact", ...(customInstructions ? { customInstructions } : {}) });
  }
  async setAutoCompaction(enabled: boolean): Promise<void> {
    await this.call({ type: "set_auto_compaction", enabled });
  }
  async setAutoRetry(enabled: boolean): Promise<void> {
    await this.call({ type: "set_auto_retry", enabled });
  }
  async abortRetry(): Promise<void> {
    await this.call({ type: "abort_retry" });
  }
  bash(command: string): Promise<BashResult> {
    return this.call({ type: "bash", command });
  }
  async abortBash(): Promise<void> {
    await this.call({ type: "abort_bash" });
  }
  getSessionStats(): Promise<SessionStats> {
    return this.call({ type: "get_session_stats" });
  }
  exportHtml(outputPath?: string): Promise<{ path: string }> {
    return this.call({ type: "export_html", ...(outputPath ? { outputPath } : {}) });
  }
  switchSession(sessionPath: string): Promise<{ cancelled: boolean }> {
    return this.call({ type: "switch_session", sessionPath });
  }
  fork(entryId: string): Promise<{ text: string; cancelled: boolean }> {
    return this.call({ type: "fork", entryId });
  }
  clone(): Promise<{ cancelled: boolean }> {
    return this.call({ type: "clone" });
  }
  async getForkMessages(): Promise<Array<{ entryId: string; text: string }>> {
    return (await this.call<{ messages: Array<{ entryId: string; text: string }> }>({ type: "get_fork_messages" }))
      .messages;
  }
  async getLastAssistantText(): Promise<string | null> {
    return (await this.call<{ text: string | null }>({ type: "get_last_assistant_text" })).text;
  }
  async setSessionName(name: string): Promise<void> {
    await this.call({ type: "set_session_name", name });
  }
  async getMessages(): Promise<AgentMessage[]> {
    return (await this.call<{ messages: AgentMessage[] }>({ type: "get_messages" })).messages;
  }
  async getCommands(): Promise<RpcSlashCommand[]> {
    return (await this.call<{ commands: RpcSlashCommand[] }>({ type: "get_commands" })).commands;
  }

  /**
   * Tiller: decides a waiting approval (a `tool_approval_request` line's `approval.id`, seen by a listener with
   * `{ tillerEvents: true }`). Rejects when none with that id waits (decided, timed out or aborted).
   */
  async resolveApproval(approvalId: string, decision: ApprovalDecision, reason?: string): Promise<void> {
    await this.call({ type: "resolve_approval", approvalId, decision, ...(reason !== undefined ? { reason } : {}) });
  }
  /** Tiller: the approvals waiting for a decision. */
  async getPendingApprovals(): Promise<PendingApproval[]> {
    return (await this.call<{ approvals: PendingApproval[] }>({ type: "get_pending_approvals" })).approvals;
  }

  /** Resolves at the next `agent_end` event. */
  waitForIdle(timeout = 60_000): Promise<void> {
    return this.collectEvents(timeout).then(() => undefined);
  }

  /**
   * Every event up to and including the next `agent_end`: pi's events, or with `{ tillerEvents: true }` every
   * event line (approvals included).
   */
  collectEvents(timeout?: number): Promise<CoreAgentEvent[]>;
  collectEvents(timeout: number | undefined, options: TillerEventsOption): Promise<TillerSessionEvent[]>;
  collectEvents(timeout = 60_000, options?: TillerEventsOption): Promise<TillerSessionEvent[]> {
    return new Promise((resolve, reject) => {
      const events: TillerSessionEvent[] = [];
      const timer = setTimeout(() => {
        off();
        reject(new Error(`Timeout after ${timeout} ms waiting for agent_end. Stderr: ${this.stderr}`));
      }, timeout);
      const off = this.listen((event) => {
        events.push(event);
        if (event.type === "agent_end") {
          clearTimeout(timer);
          off();
          resolve(events);
        }
      }, options?.tillerEvents === true);
    });
  }

  /** Sends `message` and resolves with the events of the run it started. */
  async promptAndWait(message: string, images?: ImageContent[], timeout = 60_000): Promise<CoreAgentEvent[]> {
    const events = this.collectEvents(timeout);
    await this.prompt(message, images);
    return events;
  }

  // ---- internals ----

  private listen(fn: RpcTillerEventListener, tillerEvents: boolean): () => void {
    return this.listeners.add(fn, tillerEvents);
  }

  private onLine(line: string): void {
    let data: { type?: unknown; id?: unknown };
    try {
      data = JSON.parse(line) as { type?: unknown; id?: unknown };
    } catch {
      return; // not a protocol line
    }
    if (data?.type === "response" && typeof data.id === "string") {
      const p = this.pending.get(data.id);
      if (p) {
        this.pending.delete(data.id);
        p.resolve(data as RpcResponse);
        return;
      }
    }
    // Tiller's additions only to the listeners that asked, as a session's (listeners.ts).
    this.listeners.emit(data as TillerSessionEvent);
  }

  private async call<T = undefined>(command: RpcCommand): Promise<T> {
    const child = this.child;
    if (!child) throw new Error("Client not started");
    if (this.exitError) throw this.exitError;
    const id = `req_${++this.nextId}`;
    const response = await new Promise<RpcResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`Timeout waiting for response to ${command.type}. Stderr: ${this.stderr}`));
      }, 30_000);
      this.pending.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.stdin.write(toJsonLine({ ...command, id }));
    });
    if (!response.success) throw new Error(response.error);
    return response.data as T;
  }
}
