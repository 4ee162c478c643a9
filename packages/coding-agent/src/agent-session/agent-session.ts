/**
 * `AgentSession`: the session core (agent-session-core.ts: persistence, prompting, retries, compaction, tree
 * moves) with the API of pi-coding-agent 0.73's AgentSession on top. Members here read or drive the core; each
 * larger behaviour lives in its own file.
 */

import type { AgentMessage, AgentState, AgentTool, QueueMode, ThinkingLevel } from "@tiller/agent";
import { clampThinkingLevel, getSupportedThinkingLevels, type ImageContent, type TextContent } from "@tiller/ai";
import { wireExtensions } from "../cli/session-setup.js";
import { estimateTokens } from "../compaction/estimate.js";
import type { PromptTemplate } from "../context/prompt-templates.js";
import type { ExtensionBindings, ExtensionCommandContext } from "../extensions/context.js";
import { bindExtensionRuntime } from "../extensions/extension-runtime.js";
import { ExtensionRunner, extensionRunnerOf } from "../extensions/runner.js";
import type { ToolDefinition } from "../extensions/tool-definition.js";
import type { ResourceLoader } from "../runtime/resource-loader.js";
import type { CustomMessage } from "../session/messages.js";
import type { BashOperations } from "../tools/bash.js";
import type { AgentSessionConfig, PromptOptions } from "./agent-session-core.js";
import { AgentSessionCore } from "./agent-session-core.js";
import { EmptyResourceLoader } from "./empty-resource-loader.js";
import type { ContextUsage, SessionStats } from "./events.js";
import { discoveredResourcePaths, ExtensionHooks } from "./extension-hooks.js";
import { exportBranchToHtml } from "./html-export.js";
import { type ModelCycleResult, nextCandidate, type ScopedModel } from "./model-cycling.js";
import { SessionBash } from "./session-bash.js";
import { exportBranchToJsonl } from "./session-export.js";
import { computeSessionStats } from "./session-stats.js";
import { SessionToolRegistry, type ToolInfo } from "./tool-registry.js";
import type { BashResult } from "./user-bash.js";
import { lastAssistantText, textOf } from "./user-input.js";

export type { AgentSessionConfig, PromptOptions } from "./agent-session-core.js";
export type { ModelCycleResult, ScopedModel } from "./model-cycling.js";
export type { ToolInfo } from "./tool-registry.js";
export type { BashResult } from "./user-bash.js";

/** A command context that can also send messages into its session (pi's ReplacedSessionContext). */
export interface ReplacedSessionCommandContext extends ExtensionCommandContext {
  sendMessage<T = unknown>(
    message: Pick<CustomMessage<T>, "customType" | "content" | "display" | "details">,
    options?: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" },
  ): Promise<void>;
  sendUserMessage(
    content: string | (TextContent | ImageContent)[],
    options?: { deliverAs?: "steer" | "followUp" },
  ): Promise<void>;
}

export class AgentSession extends AgentSessionCore {
  private scoped: ScopedModel[] = [];
  private readonly loader: ResourceLoader | undefined;
  /** `resourceLoader` of a session built without one (pi's sessions always have one). */
  private readonly emptyLoader = new EmptyResourceLoader(() => this.runner);
  private runner: ExtensionRunner;
  private readonly registry: SessionToolRegistry;
  private readonly systemPromptFor: ((tools: readonly AgentTool[]) => string) | undefined;
  private readonly bash = new SessionBash({
    sessionManager: this.sessionManager,
    settingsManager: this.settingsManager,
    runner: () => this.runner,
    isStreaming: () => this.isStreaming,
    append: (message) => this.appendToTranscript(message),
  });

  constructor(config: AgentSessionConfig) {
    super(config);
    this.loader = config.resourceLoader;
    this.runner = config.resourceLoader
      ? extensionRunnerOf(config.resourceLoader.getExtensions())
      : new ExtensionRunner([]);
    this.registry = config.toolRegistry ?? new SessionToolRegistry();
    this.registry.addMissing(this.agent.state.tools);
    this.systemPromptFor = config.systemPromptFor;
    if (config.resourceLoader) this.useExtensionHooks(this.runner);
  }

  /** As the core's `prompt`; user commands that finished during the last run join the transcript first. */
  override async prompt(text: string, options: PromptOptions = {}): Promise<void> {
    if (!this.isStreaming) this.bash.flush();
    return super.prompt(text, options);
  }

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

  // ---- retry and compaction controls ----

  /** The retry attempt in progress (0: none). */
  get retryAttempt(): number {
    return this.recovery.attempt;
  }
  get autoRetryEnabled(): boolean {
    return this.settingsManager.getRetryEnabled();
  }
  /** Stored in the settings file, like pi. */
  setAutoRetryEnabled(enabled: boolean): void {
    this.settingsManager.setRetryEnabled(enabled);
  }
  /** Cancels a retry waiting for its backoff; the prompt then ends with the failure. */
  abortRetry(): void {
    this.recovery.abortRetry();
  }
  /** Cancels a running compaction (manual or automatic); the run goes on without it. */
  abortCompaction(): void {
    this.compaction.abort();
  }

  // ---- models and thinking levels ----

  /** Models `cycleModel` goes through (pi's `--models`); empty: every model with configured auth. */
  get scopedModels(): ReadonlyArray<ScopedModel> {
    return this.scoped;
  }
  setScopedModels(scopedModels: ScopedModel[]): void {
    this.scoped = scopedModels.slice();
  }

  /**
   * Moves to the next (or previous) model: of the scoped models that have auth, or of every model with auth. A
   * scoped model's own thinking level wins; otherwise the session's level carries over (the settings' default
   * when the current model has no reasoning), clamped to the new model. Undefined when there is no other model.
   */
  async cycleModel(direction: "forward" | "backward" = "forward"): Promise<ModelCycleResult | undefined> {
    const isScoped = this.scoped.length > 0;
    const candidates = isScoped
      ? this.scoped.filter((s) => this.modelRegistry.hasConfiguredAuth(s.model))
      : this.modelRegistry.getAvailable().map((model) => ({ model }));
    const next = nextCandidate(candidates, this.model, direction);
    if (!next) return undefined;
    const level =
      next.thinkingLevel ??
      (this.supportsThinking() ? this.thinkingLevel : (this.settingsManager.getDefaultThinkingLevel() ?? "medium")); // pi's default level
    this.switchModel(next.model, level, "cycle");
    this.settingsManager.setDefaultModelAndProvider(next.model.provider, next.model.id);
    return { model: next.model, thinkingLevel: this.thinkingLevel, isScoped };
  }

  /** The thinking levels the current model accepts (only `off` for a model without reasoning). */
  getAvailableThinkingLevels(): ThinkingLevel[] {
    return getSupportedThinkingLevels(this.model) as ThinkingLevel[];
  }
  supportsThinking(): boolean {
    return this.model.reasoning === true;
  }
  /** Moves to the next available thinking level, wrapping around; undefined for a model without reasoning. */
  cycleThinkingLevel(): ThinkingLevel | undefined {
    if (!this.supportsThinking()) return undefined;
    const levels = this.getAvailableThinkingLevels();
    const next = levels[(levels.indexOf(this.thinkingLevel) + 1) % levels.length] ?? "off";
    return this.setThinkingLevel(next);
  }

  // ---- session content ----

  /** Every user message of the session file (all branches, file order) with text, for a fork picker. */
  getUserMessagesForForking(): Array<{ entryId: string; text: string }> {
    const out: Array<{ entryId: string; text: string }> = [];
    for (const e of this.sessionManager.getEntries()) {
      if (e.type !== "message" || e.message.role !== "user") continue;
      const text = textOf(e.message.content);
      if (text) out.push({ entryId: e.id, text });
    }
    return out;
  }
  /** Writes the current branch as a self-contained HTML page; returns its path. See `exportBranchToHtml`. */
  async exportToHtml(outputPath?: string): Promise<string> {
    return exportBranchToHtml(this.sessionManager, this.systemPrompt, outputPath);
  }
  /** Writes the current branch as a linear session file; returns its path. See `exportBranchToJsonl`. */
  exportToJsonl(outputPath?: string): string {
    return exportBranchToJsonl(this.sessionManager, outputPath);
  }

  // ---- user bash (pi's `!cmd`) ----

  /**
   * Runs a command the user typed (with the settings' `shellCommandPrefix`) in the session's cwd and records it
   * as a `bashExecution` message: now when idle, before the next prompt while the agent runs. With
   * `excludeFromContext` the model never sees it. `operations` runs it elsewhere (a container, SSH).
   */
  async executeBash(
    command: string,
    onChunk?: (chunk: string) => void,
    options: { excludeFromContext?: boolean; operations?: BashOperations } = {},
  ): Promise<BashResult> {
    return this.bash.execute(command, onChunk, options);
  }

  /** Records a command's result as a `bashExecution` message (for extensions that ran it themselves). */
  recordBashResult(command: string, result: BashResult, options: { excludeFromContext?: boolean } = {}): void {
    this.bash.record(command, result, options);
  }
  /** Kills the running user command; its result comes back `cancelled`. */
  abortBash(): void {
    this.bash.kill();
  }
  get isBashRunning(): boolean {
    return this.bash.running;
  }
  get hasPendingBashMessages(): boolean {
    return this.bash.hasPending;
  }

  // ---- messages from extensions ----

  /**
   * Adds an extension's message (a `custom_message` entry; the model reads it as user text). `deliverAs:
   * "nextTurn"` holds it for the next prompt; while the agent runs it is queued as steering (default) or a
   * follow-up; when idle, `triggerTurn` runs a turn on it, otherwise it just joins the transcript.
   */
  async sendCustomMessage<T = unknown>(
    message: Pick<CustomMessage<T>, "customType" | "content" | "display" | "details">,
    options: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" } = {},
  ): Promise<void> {
    this.assertUsable();
    const custom: CustomMessage<T> = { role: "custom", ...message, timestamp: Date.now() };
    if (options.deliverAs === "nextTurn") this.nextTurn.push(custom);
    else if (this.isStreaming) {
      if (options.deliverAs === "followUp") this.agent.followUp(custom);
      else this.agent.steer(custom);
    } else if (options.triggerTurn) await this.run([custom]);
    else {
      this.appendToTranscript(custom);
      await this.emit({ type: "message_start", message: custom });
      await this.emit({ type: "message_end", message: custom });
    }
  }

  /** Prompts with `content` (text parts joined by newlines, images attached); queued per `deliverAs` while running. */
  async sendUserMessage(
    content: string | (TextContent | ImageContent)[],
    options: { deliverAs?: "steer" | "followUp" } = {},
  ): Promise<void> {
    const parts = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
    const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
    const images = parts.filter((p): p is ImageContent => p.type === "image");
    await this.prompt(text, {
      ...(images.length > 0 ? { images } : {}),
      ...(options.deliverAs ? { streamingBehavior: options.deliverAs } : {}),
    });
  }

  // ---- other session files ----

  /**
   * Continues in the session stored at `path` (the RPC `switch_session`): its transcript, and its model and
   * thinking level when the registry knows the model. Queued messages are dropped; the agent must be idle. An
   * unreadable or locked file throws before anything changes.
   */
  switchSessionFile(path: string): void {
    this.assertIdle("switch sessions");
    this.sessionManager.setSessionFile(path);
    this.steeringTexts = [];
    this.followUpTexts = [];
    this.nextTurn.length = 0;
    this.bash.discard();
    this.reloadFromSession();
    const { model, thinkingLevel } = this.sessionManager.buildSessionContext();
    const found = model ? this.modelRegistry.find(model.provider, model.modelId) : undefined;
    if (found) this.agent.setModel(found);
    if (this.sessionManager.getEntries().some((e) => e.type === "thinking_level_change"))
      this.agent.setThinkingLevel(clampThinkingLevel(this.model, thinkingLevel as ThinkingLevel) as ThinkingLevel);
  }

  // ---- stats ----

  getSessionStats(): SessionStats {
    return computeSessionStats(this.sessionManager);
  }

  /** Always an estimate (never pi's `null`: Tiller counts the compacted view too). */
  getContextUsage(): ContextUsage & { tokens: number; percent: number } {
    const tokens = this.compaction.contextTokens(this.compaction.applyView(this.agent.state.messages));
    const contextWindow = this.model.contextWindow;
    return { tokens, contextWindow, percent: contextWindow > 0 ? (tokens / contextWindow) * 100 : 0 };
  }

  /** Estimated tokens of one message (exposed for UIs). */
  estimateTokens(message: AgentMessage): number {
    return estimateTokens(message);
  }

  // ---- resources and extensions ----

  /** The loader the session was created with, or one that reads nothing (empty-resource-loader.ts). */
  get resourceLoader(): ResourceLoader {
    return this.loader ?? this.emptyLoader;
  }
  /** The prompt templates of the resource loader (none without one). */
  get promptTemplates(): ReadonlyArray<PromptTemplate> {
    return this.loader?.getPrompts().prompts ?? [];
  }
  /** The runner dispatching the loaded extensions' events (an empty one without a loader). */
  get extensionRunner(): ExtensionRunner {
    return this.runner;
  }
  /**
   * Makes `runner` the session's extension runner (the CLI loads extensions itself) and hooks it in where the
   * session decides: compactions (`session_before_compact`, `session_compact`), tree moves (`session_before_tree`,
   * `session_tree`), user commands (`user_bash`), provider requests and responses (`before_provider_request`
   * after any `onPayload` the agent already had, `after_provider_response`), tool calls and results, the context
   * and the agent events. A later call replaces the earlier runner's hooks.
   */
  useExtensionHooks(runner: ExtensionRunner): void {
    this.runner = runner;
    this.extensions = runner;
    this.compaction.extensions = runner;
    this.hooks.use(runner);
  }
  private readonly hooks = new ExtensionHooks(this.agent, (l) => this.subscribe(l, { tillerEvents: true }));

  /**
   * pi's `bindExtensions`: the host's UI, `/command` session controls, shutdown handler and error listener for the
   * session's extensions. Unlike pi's it emits no `session_start`: the session delivered that when it was created.
   */
  async bindExtensions(bindings: ExtensionBindings): Promise<void> {
    const runner = this.runner;
    if (bindings.uiContext) runner.setUIContext(bindings.uiContext);
    if (bindings.commandContextActions) runner.bindCommandContext(bindings.commandContextActions);
    if (bindings.shutdownHandler) runner.setShutdownHandler(bindings.shutdownHandler);
    if (bindings.onError) runner.onError(bindings.onError);
  }

  /**
   * pi's `createReplacedSessionContext`: the command context of this session plus `sendMessage` /
   * `sendUserMessage`, what a `withSession` callback works with after the session was replaced.
   */
  createReplacedSessionContext(): ReplacedSessionCommandContext {
    return Object.assign(this.runner.createCommandContext(), {
      sendMessage: <T = unknown>(
        message: Pick<CustomMessage<T>, "customType" | "content" | "display" | "details">,
        options?: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" },
      ) => this.sendCustomMessage(message, options),
      sendUserMessage: (
        content: string | (TextContent | ImageContent)[],
        options?: { deliverAs?: "steer" | "followUp" },
      ) => this.sendUserMessage(content, options),
    });
  }

  /**
   * pi's `reload`: the extensions get `session_shutdown` (reason `reload`), the settings files and the resource
   * loader are read again (extension factories run again; skills, prompts and context files are re-read). The
   * new extensions take over the host's bindings (UI, `/command` controls, shutdown, error listeners) and the
   * flag values; the old extensions' contexts go stale, their tools leave the session, the new extensions' tools
   * join it active, the other active tools stay, and a system prompt built from the loader is rebuilt. Then the
   * extensions get `session_start` (reason `reload`). Without a resource loader (the CLI loads extensions
   * itself) the extensions are not re-run: they get the two events around the settings reload.
   */
  async reload(): Promise<void> {
    this.assertIdle("reload");
    const previous = this.runner;
    await previous.emit({ type: "session_shutdown", reason: "reload" });
    await this.settingsManager.reload();
    if (this.loader) {
      const flags = previous.getFlagValues();
      const active = this.getActiveToolNames();
      const oldTools = new Set(previous.getTools().map((t) => t.name));
      await this.loader.reload();
      const loaded = this.loader.getExtensions();
      const runner = extensionRunnerOf(loaded);
      for (const [name, value] of flags) runner.setFlagValue(name, value);
      wireExtensions(this, runner, previous.createContext().cwd, { hasUI: previous.hasUI() });
      if (loaded.runtime !== runner.runtime) bindExtensionRuntime(loaded.runtime, this);
      previous.passHostTo(runner);
      previous.invalidate();
      for (const name of oldTools) this.registry.remove(name);
      this.registry.addExtensionTools(runner);
      const added = runner.getTools().map((t) => t.name);
      this.setActiveToolsByName([...new Set([...active.filter((n) => !oldTools.has(n)), ...added])]);
    }
    await this.runner.emit({ type: "session_start", reason: "reload", sessionId: this.sessionId });
    await this.extendResourcesFromExtensions("reload");
  }

  /**
   * Sends `resources_discover` (after `session_start`, as pi): the skill folders the extensions name join the
   * resource loader's skills at once, and a system prompt built from the loader is rebuilt with them.
   */
  async extendResourcesFromExtensions(reason: "startup" | "reload"): Promise<void> {
    if (!this.loader || !this.runner.hasHandlers("resources_discover")) return;
    const found = await this.runner.emitResourcesDiscover(this.runner.createContext().cwd, reason);
    if (found.skillPaths.length + found.promptPaths.length + found.themePaths.length === 0) return;
    this.loader.extendResources(discoveredResourcePaths(found, this.runner.createContext().cwd));
    this.setActiveToolsByName(this.getActiveToolNames());
  }

  /** Whether any loaded extension handles `eventType`. */
  hasExtensionHandlers(eventType: string): boolean {
    return this.runner.hasHandlers(eventType as Parameters<ExtensionRunner["hasHandlers"]>[0]);
  }

  // ---- the tool registry ----

  /** As the core's `setTools`; tools new to the session join its registry (as the program's). */
  override setTools(tools: AgentTool[]): void {
    this.registry.addMissing(tools);
    super.setTools(tools);
  }
  /** Every tool the session knows, active or not, with its parameters and source. */
  getAllTools(): ToolInfo[] {
    return this.registry.infos();
  }
  getToolDefinition(name: string): ToolDefinition | undefined {
    return this.registry.definition(name);
  }
  /**
   * Makes exactly the named known tools active (unknown names are ignored), from the next turn on; a system
   * prompt built from the resource loader is rebuilt for them.
   */
  setActiveToolsByName(toolNames: string[]): void {
    const tools = this.registry.pick(toolNames);
    super.setTools(tools);
    if (this.systemPromptFor) this.agent.setSystemPrompt(this.systemPromptFor(tools));
  }
}
