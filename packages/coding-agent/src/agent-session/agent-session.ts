/**
 * `AgentSession`: an Agent bound to a session file. Every message is appended to the session at its
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
  AgentMessage,
  AgentState,
  AgentTool,
  QueueMode,
  ThinkingLevel,
  ToolCallsResume,
} from "@tiller/agent";
import {
  type AssistantMessage,
  clampThinkingLevel,
  type ImageContent,
  isContextOverflow,
  type Model,
  type UserMessage,
} from "@tiller/ai";
import type { CompactionResult } from "../compaction/compact.js";
import { estimateTokens, shouldCompact } from "../compaction/estimate.js";
import { pruneContext } from "../compaction/pruning.js";
import { CompactionError } from "../compaction/summarize.js";
import type { ModelRegistry } from "../models/model-registry.js";
import { isRetryableFailure, retryDelayMs, sleep } from "../retry.js";
import { convertToLlm } from "../session/messages.js";
import type { SessionManager } from "../session/session-manager.js";
import type { SettingsManager } from "../settings/settings-manager.js";
import { CompactionController } from "./compaction-controller.js";
import type { AgentSessionEvent, AgentSessionEventListener, ContextUsage, SessionStats } from "./events.js";
import { computeSessionStats } from "./session-stats.js";
import { navigateSessionTree } from "./tree-navigation.js";
import { lastAssistantText, textOf, userMessage } from "./user-input.js";

export interface AgentSessionConfig {
  agent: Agent;
  sessionManager: SessionManager;
  settingsManager: SettingsManager;
  modelRegistry: ModelRegistry;
  /** Check that the model's provider has a key before prompting (default true; off with a custom streamFn). */
  requireAuth?: boolean;
}

export interface PromptOptions {
  images?: ImageContent[];
  /** Required while a run is active: queue as steering (next tool boundary) or follow-up (when it would stop). */
  streamingBehavior?: "steer" | "followUp";
}

export class AgentSession {
  readonly agent: Agent;
  readonly sessionManager: SessionManager;
  readonly settingsManager: SettingsManager;
  readonly modelRegistry: ModelRegistry;

  private listeners: AgentSessionEventListener[] = [];
  private unsubscribeAgent: () => void;
  private steeringTexts: string[] = [];
  private followUpTexts: string[] = [];
  private running = false;
  private readonly compaction: CompactionController;
  private retryAttempt = 0;
  private overflowRecovered = false;
  private controller: AbortController | undefined;
  private lastRequestAt: number | undefined;
  private disposed = false;
  private readonly requireAuth: boolean;

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
    this.unsubscribeAgent = this.agent.subscribe((event) => this.onAgentEvent(event));
    this.compaction.indexBranch();
  }

  // ---- events ----

  /** Every AgentEvent plus session events. Returns the unsubscribe function. Async listeners are awaited. */
  subscribe(listener: AgentSessionEventListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  private emit(event: AgentSessionEvent): Promise<void> | undefined {
    let pending: Promise<unknown>[] | undefined;
    for (const l of this.listeners) {
      try {
        const r = l(event);
        if (r && typeof (r as Promise<void>).then === "function") (pending ??= []).push(r as Promise<void>);
      } catch (err) {
        console.error(`[tiller] a session listener failed on ${event.type}:`, err);
      }
    }
    return pending ? Promise.all(pending).then(() => undefined) : undefined;
  }

  private onAgentEvent(event: AgentEvent): Promise<void> | undefined {
    if (event.type === "message_start" && event.message.role === "user") this.takeQueued(event.message);
    else if (event.type === "message_end") {
      const id = this.sessionManager.appendMessage(event.message);
      this.compaction.entryIds.set(event.message, id);
      if (event.message.role === "assistant") this.lastRequestAt = Date.now();
    } else if (event.type === "turn_end" || event.type === "agent_end") this.sessionManager.sync();
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

  private emitQueue(): Promise<void> | undefined {
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
    return this.retryAttempt > 0;
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
    await this.runToCompletion(() => this.agent.prompt([userMessage(text, options.images)]));
  }

  /**
   * Finishes a tool batch that was waiting for approval when an earlier process stopped, then continues the run
   * to completion like `prompt` (retries, compaction). The session's branch must end with the approvals'
   * assistant message; see `Agent.resumeToolCalls`.
   */
  async resumeToolCalls(resume: ToolCallsResume): Promise<void> {
    this.assertUsable();
    this.assertIdle("resume tool calls");
    await this.runToCompletion(() => this.agent.resumeToolCalls(resume));
  }

  private async runToCompletion(start: () => Promise<void>): Promise<void> {
    const model = this.model;
    if (this.requireAuth && !this.modelRegistry.hasConfiguredAuth(model))
      throw new Error(
        `No API key for provider "${model.provider}" (model ${model.id}): set one with --api-key, auth.json or the environment.`,
      );
    this.running = true;
    this.controller = new AbortController();
    this.retryAttempt = 0;
    this.overflowRecovered = false;
    try {
      this.writeInitialState();
      await start();
      while ((await this.finishRun()) === "continue") {
        try {
          await this.agent.continue();
        } catch (err) {
          // Nothing left to re-run (e.g. the transcript now ends with an assistant message): stop quietly.
          await this.endRetry(false, err instanceof Error ? err.message : String(err));
          break;
        }
      }
    } finally {
      this.running = false;
      this.controller = undefined;
    }
  }

  /** Queues a message delivered at the next tool boundary of the running loop. */
  steer(text: string, images?: ImageContent[]): void {
    this.steeringTexts.push(text);
    this.agent.steer(userMessage(text, images));
    void this.emitQueue();
  }

  /** Queues a message delivered when the running loop would otherwise stop. */
  followUp(text: string, images?: ImageContent[]): void {
    this.followUpTexts.push(text);
    this.agent.followUp(userMessage(text, images));
    void this.emitQueue();
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

  setModel(model: Model): void {
    this.agent.setModel(model);
    this.sessionManager.appendModelChange(model.provider, model.id);
    void this.emit({ type: "model_changed", model });
    const clamped = clampThinkingLevel(model, this.thinkingLevel) as ThinkingLevel;
    if (clamped !== this.thinkingLevel) this.setThinkingLevel(clamped);
  }

  /** Sets the reasoning level, clamped to what the model supports. Returns the level applied. */
  setThinkingLevel(level: ThinkingLevel): ThinkingLevel {
    const applied = clampThinkingLevel(this.model, level) as ThinkingLevel;
    this.agent.setThinkingLevel(applied);
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

  // ---- pi's accessors (AgentSession of pi-coding-agent 0.73) ----

  get state(): AgentState {
    return this.agent.state;
  }
  get systemPrompt(): string {
    return this.agent.state.systemPrompt;
  }
  get sessionName(): string | undefined {
    return this.sessionManager.getSessionName();
  }
  get steeringMode(): QueueMode {
    return this.agent.steeringMode;
  }
  get followUpMode(): QueueMode {
    return this.agent.followUpMode;
  }
  setSteeringMode(mode: QueueMode): void {
    this.agent.steeringMode = mode;
  }
  setFollowUpMode(mode: QueueMode): void {
    this.agent.followUpMode = mode;
  }
  get autoCompactionEnabled(): boolean {
    return this.settingsManager.get().compaction.enabled;
  }
  /** Stored in the settings file, like pi. */
  setAutoCompactionEnabled(enabled: boolean): void {
    this.settingsManager.setCompactionEnabled(enabled);
  }
  getActiveToolNames(): string[] {
    return this.agent.state.tools.map((t) => t.name);
  }
  getSteeringMessages(): readonly string[] {
    return this.steeringTexts;
  }
  getFollowUpMessages(): readonly string[] {
    return this.followUpTexts;
  }
  /** Text of the newest assistant message, or undefined when there is none (or it has no text). */
  getLastAssistantText(): string | undefined {
    return lastAssistantText(this.agent.state.messages);
  }

  // ---- run end: retry, overflow recovery, threshold compaction ----

  /** Decides what follows a finished run: "continue" re-runs the last turn. */
  private async finishRun(): Promise<"continue" | "done"> {
    if (this.compaction.hasView) this.reloadFromSession();
    const messages = this.agent.state.messages;
    const last = messages[messages.length - 1];
    const signal = this.controller?.signal;
    if (last?.role === "assistant" && last.stopReason === "error") {
      const settings = this.settingsManager.get();
      if (isContextOverflow(last, this.model.contextWindow) && settings.compaction.enabled && !this.overflowRecovered) {
        this.overflowRecovered = true;
        this.dropFailedTurn(last);
        if (!(await this.compaction.run("overflow", this.agent.state.messages, signal, true))) return "done";
        this.reloadFromSession();
        return "continue";
      }
      if (settings.retry.enabled && isRetryableFailure(last) && this.retryAttempt < settings.retry.maxRetries) {
        this.retryAttempt++;
        const delayMs = retryDelayMs(this.retryAttempt, settings.retry, last.retryAfterMs);
        await this.emit({
          type: "auto_retry_start",
          attempt: this.retryAttempt,
          maxAttempts: settings.retry.maxRetries,
          delayMs,
          errorMessage: last.errorMessage ?? "",
        });
        this.dropFailedTurn(last);
        try {
          await sleep(delayMs, signal);
        } catch {
          await this.endRetry(false, "retry aborted");
          return "done";
        }
        return "continue";
      }
      await this.endRetry(false, last.errorMessage);
      return "done";
    }
    await this.endRetry(true);
    const settings = this.settingsManager.get();
    if (last?.role === "assistant" && last.stopReason !== "aborted" && settings.compaction.enabled) {
      const tokens = this.compaction.contextTokens(messages);
      if (shouldCompact(tokens, this.model.contextWindow, settings.compaction)) {
        await this.compaction.run("threshold", messages, signal, false);
        if (this.compaction.hasView) this.reloadFromSession();
      }
    }
    return "done";
  }

  private async endRetry(success: boolean, finalError?: string): Promise<void> {
    if (this.retryAttempt === 0) return;
    const attempt = this.retryAttempt;
    this.retryAttempt = 0;
    await this.emit({ type: "auto_retry_end", success, attempt, ...(finalError ? { finalError } : {}) });
  }

  /** Takes a failed assistant message out of the context: the session branches back to its parent. */
  private dropFailedTurn(failed: AssistantMessage): void {
    const messages = this.agent.state.messages;
    if (messages[messages.length - 1] === failed) this.agent.replaceMessages(messages.slice(0, -1));
    const id = this.compaction.entryIds.get(failed);
    const parent = id === undefined ? undefined : this.sessionManager.getEntry(id)?.parentId;
    if (parent === null) this.sessionManager.resetLeaf();
    else if (parent !== undefined) this.sessionManager.branch(parent);
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
   * for editing. With `summarize`, the abandoned branch is summarized into a `branch_summary` entry.
   */
  async navigateTree(targetId: string, options: { summarize?: boolean } = {}): Promise<{ editorText?: string }> {
    this.assertIdle("navigate");
    const { editorText } = await navigateSessionTree(this.sessionManager, targetId, {
      ...(options.summarize ? { summarize: true } : {}),
      model: this.model,
      streamFn: this.agent.streamFn,
      apiKey: this.modelRegistry.getApiKey(this.model),
    });
    this.reloadFromSession();
    return editorText === undefined ? {} : { editorText };
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
    this.compaction.indexBranch();
    return file;
  }

  // ---- stats ----

  getSessionStats(): SessionStats {
    return computeSessionStats(this.sessionManager);
  }

  getContextUsage(): ContextUsage {
    const tokens = this.compaction.contextTokens(this.compaction.applyView(this.agent.state.messages));
    const contextWindow = this.model.contextWindow;
    return { tokens, contextWindow, percent: contextWindow > 0 ? (tokens / contextWindow) * 100 : 0 };
  }

  /** Estimated tokens of one message (exposed for UIs). */
  estimateTokens(message: AgentMessage): number {
    return estimateTokens(message);
  }

  // ---- lifecycle ----

  /** Stops listening, aborts any run and closes the session file (releasing its lock). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.controller?.abort();
    this.agent.abort();
    this.unsubscribeAgent();
    this.listeners = [];
    this.sessionManager.close();
  }

  // ---- internals ----

  private assertUsable(): void {
    if (this.disposed) throw new Error("This session was disposed.");
  }

  private assertIdle(what: string): void {
    this.assertUsable();
    if (this.isStreaming) throw new Error(`Cannot ${what} while the agent is running; abort it first.`);
  }

  /** Records model and thinking level before the first message of a fresh session (pi does the same). */
  private writeInitialState(): void {
    if (this.sessionManager.getEntryCount() > 0) return;
    this.sessionManager.appendModelChange(this.model.provider, this.model.id);
    this.sessionManager.appendThinkingLevelChange(this.thinkingLevel);
  }

  /** Replaces the agent's transcript with the session's context at the current leaf. */
  private reloadFromSession(): void {
    this.compaction.clearView();
    this.agent.replaceMessages(this.sessionManager.buildSessionContext().messages);
    this.compaction.indexBranch();
  }
}
