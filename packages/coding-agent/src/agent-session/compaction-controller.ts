/**
 * The compaction state of one AgentSession: which session entry each message came from, which assistant usages
 * are stale (they measured a context since compacted), and the "view" a compaction made during a running loop
 * imposes on the loop's transcript (summary + kept messages) until the run ends and the transcript is reloaded.
 */

import type { Agent, AgentMessage } from "@tiller/agent";
import type { Model } from "@tiller/ai";
import {
  type CompactionDetails,
  type CompactionReason,
  type CompactionResult,
  compactMessages,
  type MessageCompactionResult,
} from "../compaction/compact.js";
import { prepareCompaction } from "../compaction/entry-compaction.js";
import { estimateContextTokens } from "../compaction/estimate.js";
import type { ExtensionRunner } from "../extensions/runner.js";
import type { ModelRegistry } from "../models/model-registry.js";
import { getLatestCompactionEntry } from "../session/context.js";
import { createCompactionSummaryMessage } from "../session/messages.js";
import type { SessionManager } from "../session/session-manager.js";
import type { CompactionEntry } from "../session/types.js";
import type { SettingsManager } from "../settings/settings-manager.js";
import type { AgentSessionEvent } from "./events.js";

export interface CompactionControllerDeps {
  agent: Agent;
  sessionManager: SessionManager;
  settingsManager: SettingsManager;
  modelRegistry: ModelRegistry;
  emit: (event: AgentSessionEvent) => Promise<void> | undefined;
}

export class CompactionController {
  /** Session entry id of every message on the current branch (by identity). */
  readonly entryIds = new WeakMap<object, string>();
  private readonly staleUsage = new WeakSet<object>();
  private view: { firstKept: AgentMessage; summary: AgentMessage } | undefined;
  private running = false;
  /** Cancels the compaction in progress only (pi's `abortCompaction`). */
  private aborter: AbortController | undefined;

  /** Extensions asked before (`session_before_compact`) and told after (`session_compact`) each compaction. */
  extensions: ExtensionRunner | undefined;

  constructor(private readonly deps: CompactionControllerDeps) {}

  get isCompacting(): boolean {
    return this.running;
  }
  /** True when a compaction during the current run is not yet reflected in the agent's transcript. */
  get hasView(): boolean {
    return this.view !== undefined;
  }
  /** Cancels the compaction in progress, if any: it ends with `compaction_end` (`aborted: true`). */
  abort(): void {
    this.aborter?.abort();
  }
  clearView(): void {
    this.view = undefined;
  }

  /** `messages` as the model should see them after a compaction made during the running loop. */
  applyView(messages: AgentMessage[]): AgentMessage[] {
    if (!this.view) return messages;
    const i = messages.indexOf(this.view.firstKept);
    return i < 0 ? messages : [this.view.summary, ...messages.slice(i)];
  }

  /** Estimated context size of `messages`, including system prompt and tool definitions. */
  contextTokens(messages: readonly AgentMessage[]): number {
    const state = this.deps.agent.state;
    const tools = JSON.stringify(state.tools.map((t) => [t.name, t.description, t.parameters]));
    const base = Math.ceil((state.systemPrompt.length + tools.length) / 4);
    return estimateContextTokens(messages, { staleUsage: this.staleUsage, baseTokens: base });
  }

  /** Maps the messages of the session's current branch to their entry ids. */
  indexBranch(): void {
    for (const e of this.deps.sessionManager.getBranch()) if (e.type === "message") this.entryIds.set(e.message, e.id);
  }

  /**
   * Compacts `messages` (the context as sent), writes the compaction entry and makes it effective for the rest
   * of the run. Emits compaction_start/compaction_end; returns undefined when it could not compact (the reason is
   * in `compaction_end.errorMessage`).
   */
  async run(
    reason: CompactionReason,
    messages: readonly AgentMessage[],
    runSignal: AbortSignal | undefined,
    willRetry: boolean,
    customInstructions?: string,
  ): Promise<MessageCompactionResult | undefined> {
    const { agent, sessionManager, settingsManager, modelRegistry, emit } = this.deps;
    const own = new AbortController();
    this.aborter = own;
    const signal = runSignal ? AbortSignal.any([runSignal, own.signal]) : own.signal;
    this.running = true;
    await emit({ type: "compaction_start", reason });
    try {
      const previous = getLatestCompactionEntry(sessionManager.getBranch()) as CompactionEntry<
        Record<string, never>
      > | null;
      const model: Model = agent.state.model;
      const apiKey = modelRegistry.getApiKey(model);
      const supplied = await this.askExtensions(signal, customInstructions);
      const result = supplied
        ? this.fromExtension(supplied, messages)
        : await compactMessages({
            messages,
            entryIdOf: (m) => this.entryIds.get(m),
            settings: settingsManager.get().compaction,
            model,
            streamFn: agent.streamFn,
            ...(apiKey ? { apiKey } : {}),
            signal,
            tokensBefore: this.contextTokens(messages),
            ...(previous?.details ? { previousDetails: previous.details } : {}),
            ...(customInstructions ? { customInstructions } : {}),
          });
      const id = sessionManager.appendCompaction(
        result.summary,
        result.firstKeptEntryId,
        result.tokensBefore,
        result.details,
      );
      const entry = sessionManager.getEntry(id) as CompactionEntry;
      if (this.extensions?.hasHandlers("session_compact"))
        await this.extensions.emit({ type: "session_compact", compactionEntry: entry, fromExtension: !!supplied });
      for (const m of messages) if (m.role === "assistant") this.staleUsage.add(m);
      this.view = {
        firstKept: messages[result.firstKeptIndex] as AgentMessage,
        summary: createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp),
      };
      await emit({ type: "compaction_end", reason, result, aborted: false, willRetry });
      return result;
    } catch (err) {
      const errorMessage = err instanceof Error ? err.message : String(err);
      await emit({
        type: "compaction_end",
        reason,
        result: undefined,
        aborted: signal.aborted,
        willRetry: false,
        errorMessage,
      });
      return undefined;
    } finally {
      this.running = false;
      this.aborter = undefined;
    }
  }

  /** `session_before_compact`: throws when a handler cancels; returns the compaction a handler supplied. */
  private async askExtensions(
    signal: AbortSignal,
    customInstructions: string | undefined,
  ): Promise<CompactionResult | undefined> {
    const ext = this.extensions;
    if (!ext?.hasHandlers("session_before_compact")) return undefined;
    const branchEntries = this.deps.sessionManager.getBranch();
    const preparation = prepareCompaction(branchEntries, this.deps.settingsManager.get().compaction);
    // Nothing to compact by pi's cut rules: the extension has nothing to decide on.
    if (!preparation) return undefined;
    const r = await ext.emit({
      type: "session_before_compact",
      preparation,
      branchEntries,
      ...(customInstructions ? { customInstructions } : {}),
      signal,
    });
    if (r?.cancel) throw new Error("Compaction cancelled by an extension");
    return r?.compaction;
  }

  /** A compaction an extension supplied, placed in `messages` (its first kept entry must be in them). */
  private fromExtension(result: CompactionResult, messages: readonly AgentMessage[]): MessageCompactionResult {
    // The kept entry may be a non-message entry (a model change): keep from the first message at or after it.
    const position = new Map(this.deps.sessionManager.getBranch().map((e, i) => [e.id, i]));
    const from = position.get(result.firstKeptEntryId) ?? -1;
    const firstKeptIndex =
      from < 0 ? -1 : messages.findIndex((m) => (position.get(this.entryIds.get(m) ?? "") ?? -1) >= from);
    if (firstKeptIndex < 0)
      throw new Error(
        `An extension's compaction keeps entry ${result.firstKeptEntryId}, which is not on the branch being compacted`,
      );
    const details = (result.details ?? { readFiles: [], modifiedFiles: [] }) as CompactionDetails;
    return { ...result, details, firstKeptIndex };
  }
}
