/**
 * The core of `AgentSession` (agent-session.ts adds pi's API on top): an Agent bound to a session file. Every message is appended to the session at its
 * `message_end` (and fsynced at each turn end); failed turns are retried when the failure is transient;
 * the context is compacted when it nears the window — between turns of a running tool loop as well as at the
 * end of a run — and once after a context-overflow error, before the failed turn is re-run.
 *
 * Contract: `prompt` resolves when the run (including retries and compaction) is over; it never rejects for a
 * model failure (the failure is the last assistant message). While a run is active, `prompt` needs a
 * `streamingBehavior` and queues the text instead.
 */

import type {
  Agent,
  AgentEvent,
  AgentEventOf,
  AgentMessage,
  AgentTool,
  ApprovalDecision,
  ResolveApprovalOptions,
  ThinkingLevel,
  ToolCallsResume,
} from "@tiller/agent";
import { clampThinkingLevel, type ImageContent, type Model, type UserMessage } from "@tiller/ai";
import type { CompactionResult } from "../compaction/compact.js";
import { shouldCompact } from "../compaction/estimate.js";
import { pruneContext } from "../compaction/pruning.js";
import { CompactionError } from "../compaction/summarize.js";
import type { ExtensionRunner } from "../extensions/runner.js";
import type { ModelRegistry } from "../models/model-registry.js";
import type { ResourceLoader } from "../runtime/resource-loader.js";
import { convertToLlm } from "../session/messages.js";
import type { SessionManager } from "../session/session-manager.js";
import type { SettingsManager } from "../settings/settings-manager.js";
import { CompactionController } from "./compaction-controller.js";
import type {
  AgentSessionEventListener,
  TillerEventsOption,
  TillerSessionEvent,
  TillerSessionEventListener,
} from "./events.js";
import { messageEndFromExtensions } from "./extension-hooks.js";
import { SessionListeners, settled } from "./listeners.js";
import { RunRecovery } from "./run-recovery.js";
import type { SessionToolRegistry } from "./tool-registry.js";
import { navigateSessionTree, type TreeNavigationOptions, type TreeNavigationResult } from "./tree-navigation.js";
import { textOf, userMessage } from "./user-input.js";

export interface AgentSessionConfig {
  agent: Agent;
  sessionManager: SessionManager;
  settingsManager: SettingsManager;
  modelRegistry: ModelRegistry;
  /** Check that the model's provider has a key before prompting (default true; off with a custom streamFn). */
  requireAuth?: boolean;
  /** Where the session's prompt templates and extensions came from (pi's `resourceLoader`). */
  resourceLoader?: ResourceLoader;
  /** Every tool the session may switch on by name, with its source (default: the agent's tools, as the program's). */
  toolRegistry?: SessionToolRegistry;
  /** Rebuilds the system prompt for another active tool set (when it was built from the resource loader). */
  systemPromptFor?: (tools: readonly AgentTool[]) => string;
}

export interface PromptOptions {
  images?: ImageContent[];
  /** Required while a run is active: queue as steering (next tool boundary) or follow-up (when it would stop). */
  streamingBehavior?: "steer" | "followUp";
}

/** The session's core: events, persistence, prompting, recovery, compaction, tree moves. pi's API: `AgentSession`. */
export class AgentSessionCore {
  readonly agent: Agent;
  readonly sessionManager: SessionManager;
  readonly settingsManager: SettingsManager;
  readonly modelRegistry: ModelRegistry;

  private readonly listeners = new SessionListeners();
  private unsubscribeAgent: () => void;
  protected steeringTexts: string[] = [];
  protected followUpTexts: string[] = [];
  protected running = false;
  protected readonly compaction: CompactionController;
  protected readonly recovery: RunRecovery;
  protected controller: AbortController | undefined;
  private branchSummaryAbort: AbortController | undefined;
  /** Messages that go with the next prompt, after its user message (pi's `deliverAs: "nextTurn"`). */
  protected readonly nextTurn: AgentMessage[] = [];
  private lastRequestAt: number | undefined;
  private disposed = false;
  private readonly requireAuth: boolean;
  /** The extensions asked at tree moves (set by AgentSession's `useExtensionHooks`). */
  protected extensions: ExtensionRunner | undefined;

  constructor(config: AgentSessionConfig) {
    this.agent = config.agent;
    this.sessionManager = config.sessionManager;
    this.settingsManager = config.settingsManager;
    this.modelRegistry = config.modelRegistry;
    this.requireAuth = config.requireAuth ?? true;
    this.agent.convertToLlm = convertToLlm;
    this.agent.transformContext = (messages, signal) => this.transformContext(messages, signal);
    this.compaction = new CompactionController({
      agent: this.agent,
      sessionManager: this.sessionManager,
      settingsManager: this.settingsManager,
      modelRegistry: this.modelRegistry,
      emit: (e) => this.emit(e),
    });
    this.recovery = new RunRecovery({
      agent: this.agent,
      sessionManager: this.sessionManager,
      settingsManager: this.settingsManager,
      compaction: this.compaction,
      emit: (e) => this.emit(e),
      reloadFromSession: () => this.reloadFromSession(),
    });
    this.unsubscribeAgent = this.agent.subscribe((event) => this.onAgentEvent(event));
    this.compaction.indexBranch();
  }

  // ---- events ----

  /**
   * pi's events (`AgentSessionEvent`); with `{ tillerEvents: true }` Tiller's approvals and `model_changed` too
   * (events.ts). Listeners run in subscription order; async ones are awaited. Returns the unsubscribe function.
   */
  subscribe(listener: AgentSessionEventListener): () => void;
  subscribe(listener: TillerSessionEventListener, options: TillerEventsOption): () => void;
  subscribe(listener: AgentSessionEventListener, options?: Partial<TillerEventsOption>): () => void {
    return this.listeners.add(listener, options?.tillerEvents === true);
  }

  protected emit(event: TillerSessionEvent): Promise<void> | undefined {
    return this.listeners.emit(event);
  }

  private onAgentEvent(event: AgentEvent): Promise<void> | undefined {
    if (event.type === "message_start" && event.message.role === "user") this.takeQueued(event.message);
    else if (event.type === "message_end" && this.extensions?.hasHandlers("message_end"))
      // pi's order: the extensions first (a replacement takes the message's place), then storing and listeners.
      return messageEndFromExtensions(event, this.extensions).then(() => this.onMessageEnd(event));
    else if (event.type === "message_end") return this.onMessageEnd(event);
    else if (event.type === "turn_end" || event.type === "agent_end") this.sessionManager.sync();
    return this.emit(event);
  }

  private onMessageEnd(event: AgentEventOf<"message_end">): Promise<void> | undefined {
    this.persist(event.message);
    if (event.message.role === "assistant") this.lastRequestAt = Date.now();
    return this.emit(event);
  }

  private takeQueued(message: UserMessage): void {
    const text = textOf(message.content);
    for (const queue of [this.steeringTexts, this.followUpTexts]) {
      const i = queue.indexOf(text);
      if (i >= 0) {
        queue.splice(i, 1);
        void this.emitQueue();
        return;
      }
    }
  }

  protected emitQueue(): Promise<void> | undefined {
    return this.emit({ type: "queue_update", steering: [...this.steeringTexts], followUp: [...this.followUpTexts] });
  }

  // ---- state ----

  get model(): Model {
    return this.agent.state.model;
  }
  get thinkingLevel(): ThinkingLevel {
    return this.agent.state.thinkingLevel;
  }
  get messages(): AgentMessage[] {
    return this.agent.state.messages;
  }
  /** True from `prompt` until its run, retries and compaction are over. */
  get isStreaming(): boolean {
    return this.running || this.agent.state.isStreaming;
  }
  get isCompacting(): boolean {
    return this.compaction.isCompacting;
  }
  get isRetrying(): boolean {
    return this.recovery.attempt > 0;
  }
  get sessionId(): string {
    return this.sessionManager.getSessionId();
  }
  get sessionFile(): string | undefined {
    return this.sessionManager.getSessionFile();
  }
  get pendingMessageCount(): number {
    return this.steeringTexts.length + this.followUpTexts.length;
  }

  // ---- prompting ----

  /** Runs a prompt to completion (or queues it while a run is active, per `streamingBehavior`). */
  async prompt(text: string, options: PromptOptions = {}): Promise<void> {
    this.assertUsable();
    if (this.isStreaming) {
      if (options.streamingBehavior === "steer") return this.steer(text, options.images);
      if (options.streamingBehavior === "followUp") return this.followUp(text, options.images);
      throw new Error("The agent is running: pass streamingBehavior 'steer' or 'followUp' to queue this prompt.");
    }
    await this.run([userMessage(text, options.images)], true);
  }

  /**
   * Finishes a tool batch that was waiting for approval when an earlier process stopped, then continues the run
   * to completion like `prompt` (retries, compaction). The session's branch must end with the approvals'
   * assistant message; see `Agent.resumeToolCalls`.
   */
  async resumeToolCalls(resume: ToolCallsResume): Promise<void> {
    this.assertUsable();
    this.assertIdle("resume tool calls");
    await this.run(() => this.agent.resumeToolCalls(resume));
  }

  /**
   * Decides a pending approval of the running loop (a `tool_approval_request`'s id); false when none with that id
   * waits. Throws for a decision the request does not offer. See `Agent.resolveApproval`.
   */
  resolveApproval(id: string, decision: ApprovalDecision, options?: ResolveApprovalOptions): boolean {
    return this.agent.resolveApproval(id, decision, options);
  }

  /**
   * Runs `messages` as one prompt (or `start`s the loop another way, e.g. resuming tool calls): auth check, the
   * agent's loop, then retries and compaction until done. With `withNextTurn`, the messages held for the next
   * prompt go along (taken only once the auth check passed).
   */
  protected async run(start: AgentMessage[] | (() => Promise<void>), withNextTurn = false): Promise<void> {
    const model = this.model;
    if (this.requireAuth && !this.modelRegistry.hasConfiguredAuth(model))
      throw new Error(
        `No API key for provider "${model.provider}" (model ${model.id}): set one with --api-key, auth.json or the environment.`,
      );
    if (withNextTurn && Array.isArray(start)) start.push(...this.nextTurn.splice(0));
    this.running = true;
    this.controller = new AbortController();
    this.recovery.begin();
    try {
      this.writeInitialState();
      await (typeof start === "function" ? start() : this.agent.prompt(start));
      while ((await this.recovery.finishRun(this.controller?.signal)) === "continue") {
        try {
          await this.agent.continue();
        } catch (err) {
          // Nothing left to re-run (e.g. the transcript now ends with an assistant message): stop quietly.
          await this.recovery.endRetry(false, err instanceof Error ? err.message : String(err));
          break;
        }
      }
    } finally {
      this.running = false;
      this.controller = undefined;
    }
  }

  /**
   * Queues a message delivered at the next tool boundary of the running loop (queued when the call returns). The
   * promise (pi's shape) resolves once the listeners saw the `queue_update`; it never rejects (see `settled`).
   */
  steer(text: string, images?: ImageContent[]): Promise<void> {
    this.steeringTexts.push(text);
    this.agent.steer(userMessage(text, images));
    return settled(this.emitQueue(), "queue_update");
  }

  /** Queues a message delivered when the running loop would otherwise stop (the promise as for `steer`). */
  followUp(text: string, images?: ImageContent[]): Promise<void> {
    this.followUpTexts.push(text);
    this.agent.followUp(userMessage(text, images));
    return settled(this.emitQueue(), "queue_update");
  }

  /** Drops queued steering and follow-up messages. Returns their texts. */
  clearQueue(): { steering: string[]; followUp: string[] } {
    const out = { steering: this.steeringTexts, followUp: this.followUpTexts };
    this.steeringTexts = [];
    this.followUpTexts = [];
    this.agent.clearAllQueues();
    void this.emitQueue();
    return out;
  }

  /** Aborts the run, a pending retry wait, or a compaction; resolves once the agent is idle. */
  async abort(): Promise<void> {
    this.controller?.abort();
    this.agent.abort();
    await this.agent.waitForIdle();
  }

  /** Moves to `model` (in effect on return); the promise resolves once `model_select` handlers ran (never rejects). */
  setModel(model: Model): Promise<void> {
    return this.switchModel(model, this.thinkingLevel, "set");
  }

  /** Moves to `model` with `level` (clamped to it); the thinking level is recorded only when it changes. */
  protected switchModel(model: Model, level: ThinkingLevel, source: "set" | "cycle"): Promise<void> {
    const previousModel = this.agent.state.model;
    this.agent.setModel(model);
    const same = previousModel?.provider === model.provider && previousModel.id === model.id;
    const selected =
      !same && this.extensions?.hasHandlers("model_select")
        ? this.extensions.emit({ type: "model_select", model, previousModel, source })
        : undefined;
    this.sessionManager.appendModelChange(model.provider, model.id);
    const changed = this.emit({ type: "model_changed", model });
    const clamped = clampThinkingLevel(model, level) as ThinkingLevel;
    if (clamped !== this.thinkingLevel) this.setThinkingLevel(clamped);
    return settled(Promise.all([selected, changed]), "model_select");
  }

  /** Sets the reasoning level, clamped to what the model supports. Returns the level applied. */
  setThinkingLevel(level: ThinkingLevel): ThinkingLevel {
    const applied = clampThinkingLevel(this.model, level) as ThinkingLevel;
    const previousLevel = this.thinkingLevel;
    this.agent.setThinkingLevel(applied);
    if (applied !== previousLevel && this.extensions?.hasHandlers("thinking_level_select"))
      void this.extensions.emit({ type: "thinking_level_select", level: applied, previousLevel });
    this.sessionManager.appendThinkingLevelChange(applied);
    void this.emit({ type: "thinking_level_changed", level: applied });
    return applied;
  }

  setSessionName(name: string): void {
    this.sessionManager.appendSessionInfo(name);
    void this.emit({ type: "session_info_changed", name: name || undefined });
  }

  setTools(tools: AgentTool[]): void {
    this.agent.setTools(tools);
  }

  // ---- compaction ----

  /** The agent's transformContext: applies a mid-run compaction, compacts at the threshold, prunes. */
  private async transformContext(messages: AgentMessage[], signal?: AbortSignal): Promise<AgentMessage[]> {
    let view = this.compaction.applyView(messages);
    const settings = this.settingsManager.get();
    if (
      settings.compaction.enabled &&
      !this.compaction.isCompacting &&
      shouldCompact(this.compaction.contextTokens(view), this.model.contextWindow, settings.compaction)
    ) {
      if (await this.compaction.run("threshold", view, signal, false)) view = this.compaction.applyView(messages);
    }
    const pruned = pruneContext(view, settings.contextPruning, this.lastRequestAt);
    this.lastRequestAt = Date.now();
    return pruned;
  }

  /** Compacts now (the agent must be idle). Rejects with the reason when nothing could be compacted. */
  async compact(customInstructions?: string): Promise<CompactionResult> {
    this.assertIdle("compact");
    this.running = true;
    this.controller = new AbortController();
    const errors: string[] = [];
    const off = this.subscribe((e) => {
      if (e.type === "compaction_end" && e.errorMessage) errors.push(e.errorMessage);
    });
    try {
      const result = await this.compaction.run(
        "manual",
        this.agent.state.messages,
        this.controller.signal,
        false,
        customInstructions,
      );
      if (!result) throw new CompactionError(errors[0] ?? "compaction failed");
      this.reloadFromSession();
      return result;
    } finally {
      off();
      this.running = false;
      this.controller = undefined;
    }
  }

  // ---- tree, fork, new session ----

  /**
   * Moves to `targetId` in the session tree. A user message target moves to its parent and returns the text
   * for editing. With `summarize`, the abandoned branch is summarized into a `branch_summary` entry (see
   * `navigateSessionTree` for the other options); `abortBranchSummary` stops that summary and the move.
   */
  async navigateTree(
    targetId: string,
    options: Pick<TreeNavigationOptions, "summarize" | "customInstructions" | "replaceInstructions" | "label"> = {},
  ): Promise<TreeNavigationResult> {
    this.assertIdle("navigate");
    const abort = new AbortController();
    this.branchSummaryAbort = abort;
    try {
      const result = await navigateSessionTree(this.sessionManager, targetId, {
        ...options,
        model: this.model,
        streamFn: this.agent.streamFn,
        apiKey: this.modelRegistry.getApiKey(this.model),
        signal: abort.signal,
        ...(this.extensions ? { extensions: this.extensions } : {}),
      });
      if (!result.cancelled) this.reloadFromSession();
      return result;
    } finally {
      this.branchSummaryAbort = undefined;
    }
  }

  /** Stops the branch summary of a running `navigateTree`; it then resolves `cancelled` without moving. */
  abortBranchSummary(): void {
    this.branchSummaryAbort?.abort();
  }

  /** Forks the branch ending at `entryId` (default: the leaf) into a new session file and continues there. */
  fork(entryId?: string): string | undefined {
    this.assertIdle("fork");
    const file = this.sessionManager.createBranchedSession(entryId ?? this.sessionManager.getLeafId());
    this.reloadFromSession();
    return file;
  }

  /** Starts a new, empty session (new file) with the same model and settings. */
  newSession(): string | undefined {
    this.assertIdle("start a new session");
    const file = this.sessionManager.newSession();
    this.agent.reset();
    this.steeringTexts = [];
    this.followUpTexts = [];
    this.nextTurn.length = 0;
    this.compaction.indexBranch();
    return file;
  }

  // ---- lifecycle ----

  /** Stops listening, aborts any run and closes the session file (releasing its lock). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.controller?.abort();
    this.agent.abort();
    this.unsubscribeAgent();
    this.listeners.clear();
    this.sessionManager.close();
  }

  // ---- internals ----

  protected assertUsable(): void {
    if (this.disposed) throw new Error("This session was disposed.");
  }

  protected assertIdle(what: string): void {
    this.assertUsable();
    if (this.isStreaming) throw new Error(`Cannot ${what} while the agent is running; abort it first.`);
  }

  /** Records model and thinking level before the first message of a fresh session (pi does the same). */
  private writeInitialState(): void {
    if (this.sessionManager.getEntryCount() > 0) return;
    this.sessionManager.appendModelChange(this.model.provider, this.model.id);
    this.sessionManager.appendThinkingLevelChange(this.thinkingLevel);
  }

  /** Adds a message to the idle agent's transcript and the session, as a finished run would. */
  protected appendToTranscript(message: AgentMessage): void {
    this.persist(message);
    this.agent.appendMessage(message);
  }

  /** Appends a message to the session; an extension's custom message becomes a `custom_message` entry, as in pi. */
  private persist(message: AgentMessage): void {
    const id =
      message.role === "custom"
        ? this.sessionManager.appendCustomMessageEntry(
            message.customType,
            message.content,
            message.display,
            message.details,
          )
        : this.sessionManager.appendMessage(message);
    this.compaction.entryIds.set(message, id);
  }

  /** Replaces the agent's transcript with the session's context at the current leaf. */
  protected reloadFromSession(): void {
    this.compaction.clearView();
    this.agent.replaceMessages(this.sessionManager.buildSessionContext().messages);
    this.compaction.indexBranch();
  }
}
