/**
 * `AgentSession`: the session core (agent-session-core.ts: persistence, prompting, retries, compaction, tree
 * moves) with the API of pi-coding-agent 0.73's AgentSession on top. Members here read or drive the core; each
 * larger behaviour lives in its own file.
 */

import type { AgentState, QueueMode } from "@tiller/agent";
import { AgentSessionCore } from "./agent-session-core.js";
import { lastAssistantText } from "./user-input.js";

export type { AgentSessionConfig, PromptOptions } from "./agent-session-core.js";

export class AgentSession extends AgentSessionCore {
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
}
