/**
 * What follows a finished run of an AgentSession: a transient failure is retried after a backoff, a context
 * overflow is compacted once and the failed turn re-run, and a successful run past the threshold is compacted.
 * Holds the retry counter and the once-per-prompt overflow flag.
 */

import type { Agent } from "@tiller/agent";
import { type AssistantMessage, isContextOverflow } from "@tiller/ai";
import { shouldCompact } from "../compaction/estimate.js";
import { isRetryableFailure, retryDelayMs, sleep } from "../retry.js";
import type { SessionManager } from "../session/session-manager.js";
import type { SettingsManager } from "../settings/settings-manager.js";
import type { CompactionController } from "./compaction-controller.js";
import type { AgentSessionEvent } from "./events.js";

export interface RunRecoveryDeps {
  agent: Agent;
  sessionManager: SessionManager;
  settingsManager: SettingsManager;
  compaction: CompactionController;
  emit: (event: AgentSessionEvent) => Promise<void> | undefined;
  /** Replaces the agent's transcript with the session's context at the current leaf. */
  reloadFromSession: () => void;
}

export class RunRecovery {
  private retries = 0;
  private overflowRecovered = false;
  /** Cancels only the backoff wait in progress (pi's `abortRetry`); the run's own signal cancels everything. */
  private retryWait: AbortController | undefined;

  constructor(private readonly deps: RunRecoveryDeps) {}

  /** The retry attempt in progress (0: none). */
  get attempt(): number {
    return this.retries;
  }

  /** Resets the counters for a new prompt. */
  begin(): void {
    this.retries = 0;
    this.overflowRecovered = false;
  }

  /** Decides what follows a finished run: "continue" re-runs the last turn. */
  async finishRun(signal: AbortSignal | undefined): Promise<"continue" | "done"> {
    const { agent, compaction, settingsManager } = this.deps;
    if (compaction.hasView) this.deps.reloadFromSession();
    const messages = agent.state.messages;
    const last = messages[messages.length - 1];
    const model = agent.state.model;
    if (last?.role === "assistant" && last.stopReason === "error") {
      const settings = settingsManager.get();
      if (isContextOverflow(last, model.contextWindow) && settings.compaction.enabled && !this.overflowRecovered) {
        this.overflowRecovered = true;
        this.dropFailedTurn(last);
        if (!(await compaction.run("overflow", agent.state.messages, signal, true))) return "done";
        this.deps.reloadFromSession();
        return "continue";
      }
      if (settings.retry.enabled && isRetryableFailure(last) && this.retries < settings.retry.maxRetries) {
        this.retries++;
        const delayMs = retryDelayMs(this.retries, settings.retry, last.retryAfterMs);
        // Before the event, so a listener of auto_retry_start can already cancel the wait.
        const wait = new AbortController();
        this.retryWait = wait;
        await this.deps.emit({
          type: "auto_retry_start",
          attempt: this.retries,
          maxAttempts: settings.retry.maxRetries,
          delayMs,
          errorMessage: last.errorMessage ?? "",
        });
        this.dropFailedTurn(last);
        try {
          await sleep(delayMs, signal ? AbortSignal.any([signal, wait.signal]) : wait.signal);
        } catch {
          await this.endRetry(false, signal?.aborted ? "retry aborted" : "Retry cancelled");
          return "done";
        } finally {
          this.retryWait = undefined;
        }
        return "continue";
      }
      await this.endRetry(false, last.errorMessage);
      return "done";
    }
    await this.endRetry(true);
    const settings = settingsManager.get();
    if (last?.role === "assistant" && last.stopReason !== "aborted" && settings.compaction.enabled) {
      const tokens = compaction.contextTokens(messages);
      if (shouldCompact(tokens, model.contextWindow, settings.compaction)) {
        await compaction.run("threshold", messages, signal, false);
        if (compaction.hasView) this.deps.reloadFromSession();
      }
    }
    return "done";
  }

  /** Cancels the retry waiting for its backoff: the run ends with the failure (`auto_retry_end`, not successful). */
  abortRetry(): void {
    this.retryWait?.abort();
  }

  /** Ends a retry sequence (if one is running) with `auto_retry_end`. */
  async endRetry(success: boolean, finalError?: string): Promise<void> {
    if (this.retries === 0) return;
    const attempt = this.retries;
    this.retries = 0;
    await this.deps.emit({ type: "auto_retry_end", success, attempt, ...(finalError ? { finalError } : {}) });
  }

  /** Takes a failed assistant message out of the context: the session branches back to its parent. */
  private dropFailedTurn(failed: AssistantMessage): void {
    const { agent, sessionManager, compaction } = this.deps;
    const messages = agent.state.messages;
    if (messages[messages.length - 1] === failed) agent.replaceMessages(messages.slice(0, -1));
    const id = compaction.entryIds.get(failed);
    const parent = id === undefined ? undefined : sessionManager.getEntry(id)?.parentId;
    if (parent === null) sessionManager.resetLeaf();
    else if (parent !== undefined) sessionManager.branch(parent);
  }
}
